"""Scoring runs against a gold store, and the paper's ablations run side by side.

:func:`score_run` scores every prediction record of a run against a gold store (unusable
gold is counted, not scored). :func:`run_ablation` runs one benchmark once per variant of
the agent's switches -- the paper's Table 5 components (or MARS's ablations: top-N, hop
limit, examples, typology, verification) and Table 6 schema-coverage levels (seeded) --
each into its own resumable predictions file, and returns one summary per variant;
:func:`ablation_table` lays them out as a markdown table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.config.context import Method, SagaContext
from saga_kgqa.eval.qa.gerbil import GerbilCounts, gerbil_counts
from saga_kgqa.eval.qa.gold import GoldStatus, GoldStore
from saga_kgqa.eval.qa.scorer import QuestionScores, score_question, summarise
from saga_kgqa.runs.batch import Answerer, run_benchmark
from saga_kgqa.runs.predictions import PredictionRecord, summarise_traces
from saga_kgqa.schema.model import CoverageMask, SchemaIndex

#: The paper's Table 5: full SAGA and one component switched off at a time.
COMPONENT_VARIANTS: dict[str, dict[str, Any]] = {
    "full": {},
    "-type_filter": {"type_filter": False},
    "-persistent_type_state": {"persistent_type_state": False},
    "-answer_type_prior": {"answer_type_prior": False},
}
#: MARS's ablations: top-N and hop limit either side of the defaults (20, 5), and each context feature off.
MARS_VARIANTS: dict[str, dict[str, Any]] = {
    "full": {},
    "top_n=10": {"mars_top_n": 10},
    "top_n=30": {"mars_top_n": 30},
    "hop_limit=1": {"mars_hop_limit": 1},
    "hop_limit=10": {"mars_hop_limit": 10},
    "-examples": {"mars_examples": False},
    "-typology": {"mars_typology": False},
    "-verification": {"mars_verification": False},
}
#: The paper's Table 6: fractions of domain/range constraints kept.
COVERAGE_LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True, slots=True)
class ScoredQuestion:
    """One prediction and its scores, or why it was not scored.

    ``gerbil`` holds GERBIL's counts for a question left out of the means that GERBIL still
    counts (gold answer set empty); a scored question carries them in its scores.
    """

    index: int
    record: PredictionRecord
    scores: QuestionScores | None
    not_scored: str | None
    gerbil: GerbilCounts | None = None


def score_run(records: Sequence[PredictionRecord], gold: GoldStore) -> list[ScoredQuestion]:
    """Score every record against its gold; missing or unusable gold is named, not scored."""
    scored = []
    for index, record in enumerate(records):
        entry = gold.get(record.question_id)
        if entry is None or not entry.usable:
            reason = "no_gold" if entry is None else entry.status.value
            counts = None
            if entry is not None and entry.status is GoldStatus.EMPTY and entry.answers is not None:
                counts = gerbil_counts(record.predicted_result(), entry.result())
            scored.append(ScoredQuestion(index, record, None, reason, counts))
            continue
        scores = score_question(record.predicted_result(), entry.result(), gold_is_values=entry.answers_are_values)
        scored.append(ScoredQuestion(index, record, scores, None))
    return scored


def run_summary(scored: Sequence[ScoredQuestion]) -> dict[str, Any]:
    """Metric means (see :func:`~saga_kgqa.eval.qa.scorer.summarise`) plus the trace summary."""
    summary = summarise(
        [s.scores for s in scored if s.scores is not None],
        [s.not_scored for s in scored if s.not_scored],
        [s.gerbil for s in scored if s.gerbil is not None],
    )
    summary["traces"] = summarise_traces([s.record.trace for s in scored])
    return summary


def ablation_variants(
    *, components: bool = True, coverage: bool = False, method: Method = "saga"
) -> dict[str, dict[str, Any]]:
    """The switch settings to run: the method's components (SAGA's Table 5 or MARS's) and/or Table 6 levels."""
    table = MARS_VARIANTS if method == "mars" else COMPONENT_VARIANTS
    variants = dict(table) if components else {}
    if coverage:
        variants.update({f"coverage={level:g}": {"schema_coverage": level} for level in COVERAGE_LEVELS})
    return variants


def run_ablation(
    questions: Sequence[BenchmarkQuestion],
    gold: GoldStore,
    base: SagaContext,
    answerer_for: Callable[[SagaContext], Answerer],
    out_dir: Path,
    variants: Mapping[str, Mapping[str, Any]],
    *,
    config: Mapping[str, Any],
    retry_failed: bool = False,
    concurrency: int = 1,
    schema: SchemaIndex | None = None,
) -> dict[str, dict[str, Any]]:
    """Run every variant into ``out_dir/<variant>.jsonl`` (resumable) and summarise each.

    A schema-coverage variant's summary says how many declared domains its mask kept
    (``summary["coverage"]``), and when ``schema`` is given every mask is built before any
    variant runs, so a level with nothing to mask stops the ablation at once.

    Args:
        questions: The benchmark questions.
        gold: Their gold store.
        base: The context every variant starts from (its ``coverage_seed`` seeds Table 6 masks).
        answerer_for: Builds the answerer for one variant's context.
        out_dir: Where the predictions files go.
        variants: Variant name -> the switches it changes.
        config: The run configuration shared by every variant (the variant's context is added).
        retry_failed: Redo failed questions of earlier attempts.
        concurrency: Questions answered at once within a variant.
        schema: The full schema index the variants mask (checked up front when given).

    Raises:
        ConfigurationError: A coverage level has no declared domain to mask.
    """
    masks = _coverage_masks(schema, base, variants) if schema is not None else {}
    summaries = {}
    for name, switches in variants.items():
        context = dataclasses.replace(base, **switches)
        variant_config = dict(config) | {"variant": name, "context": dataclasses.asdict(context)}
        run = run_benchmark(
            questions,
            answerer_for(context),
            out_dir / f"{name}.jsonl",
            config=variant_config,
            retry_failed=retry_failed,
            concurrency=concurrency,
        )
        records = [run.records[q.id] for q in questions if q.id in run.records]
        summaries[name] = run_summary(score_run(records, gold))
        if name in masks:
            summaries[name]["coverage"] = masks[name].model_dump()
    return summaries


def _coverage_masks(
    schema: SchemaIndex, base: SagaContext, variants: Mapping[str, Mapping[str, Any]]
) -> dict[str, CoverageMask]:
    masks: dict[str, CoverageMask] = {}
    for name, switches in variants.items():
        level = float(switches.get("schema_coverage", base.schema_coverage))
        if level < 1.0 or "schema_coverage" in switches:
            mask = schema.with_coverage(level, int(switches.get("coverage_seed", base.coverage_seed))).coverage
            if mask is not None:
                masks[name] = mask
    return masks


def ablation_table(
    summaries: Mapping[str, Mapping[str, Any]], metrics: Sequence[str] = ("paper_f1", "paper_em")
) -> str:
    """A markdown table: one row per variant, one column per metric (in %), plus the empty-result rate."""
    masked = any("coverage" in summary for summary in summaries.values())
    header = ["variant", *metrics, "empty_result_rate", "scored", *(["declared domains kept"] if masked else [])]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name, summary in summaries.items():
        cells = [name]
        for metric in metrics:
            value = summary["means"].get(metric)
            cells.append("n/a" if value is None else f"{100 * value:.2f}")
        empty = summary.get("empty_result_rate")
        cells.append("n/a" if empty is None else f"{100 * empty:.1f}")
        cells.append(str(summary.get("scored", 0)))
        if masked:
            cells.append(CoverageMask(**summary["coverage"]).describe() if "coverage" in summary else "all")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"

"""One scorer for every metric: per question, then summed up over a benchmark.

:func:`score_question` computes all metrics of :mod:`saga_kgqa.eval.qa.metrics` for one
prediction against one usable gold answer. Gold that is unavailable, empty or drifting is
not scored at all: :func:`summarise` counts those questions apart, by reason, and leaves
them out of every mean.

When the gold answers are bare values (``answers_are_values``: labels or flattened
result sets), only the value-based paper F1 can be computed; the row and term metrics are
``None`` for that question and the means skip them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from saga_kgqa.eval.qa.gerbil import GerbilCounts, gerbil_counts, gerbil_prf, gerbil_summary
from saga_kgqa.eval.qa.metrics import (
    grasp_f1,
    is_empty,
    paper_f1,
    spinach_row_f1,
    strict_set_f1,
)
from saga_kgqa.kg.core.result import QueryResult

#: Metrics averaged by :func:`summarise`, in report order.
MEAN_METRICS = (
    "paper_f1",
    "paper_em",
    "strict_f1",
    "strict_em",
    "strict_f1_canonical",
    "strict_em_canonical",
    "spinach_row_f1",
    "spinach_row_em",
    "grasp_f1",
    "gerbil_precision",
    "gerbil_recall",
    "gerbil_f1",
)


@dataclass(frozen=True, slots=True)
class QuestionScores:
    """Every metric for one question (``None``: not computable from value-only gold).

    Attributes:
        paper_f1: The paper's F1 over answer values; ``paper_em`` is 1.0 when it is 1.
        strict_f1: Set F1 over raw RDF terms; ``strict_em`` its exact match.
        strict_f1_canonical: Set F1 over canonical terms; ``strict_em_canonical`` its exact match.
        spinach_row_f1: SPINACH's row-major F1; ``spinach_row_em`` is 1.0 when it is 1.
        grasp_f1: GRASP's assignment F1.
        gerbil_precision: QALD/GERBIL answer-set precision under the QALD rule (no answer:
            precision 1); ``gerbil_recall``, ``gerbil_f1`` likewise.
        predicted_empty: The prediction is missing or has no row.
        gerbil_counts: GERBIL's true/false positives and false negatives, for its aggregates.
    """

    paper_f1: float
    paper_em: float
    strict_f1: float | None
    strict_em: float | None
    strict_f1_canonical: float | None
    strict_em_canonical: float | None
    spinach_row_f1: float | None
    spinach_row_em: float | None
    grasp_f1: float | None
    gerbil_precision: float | None
    gerbil_recall: float | None
    gerbil_f1: float | None
    predicted_empty: bool
    gerbil_counts: GerbilCounts | None = None

    def to_dict(self) -> dict[str, Any]:
        """The scores as a JSON-ready mapping."""
        return asdict(self)


def _exact(value: float | None) -> float | None:
    return None if value is None else float(value >= 1.0 - 1e-12)


def score_question(predicted: QueryResult | None, gold: QueryResult, *, gold_is_values: bool = False) -> QuestionScores:
    """Score one prediction against usable gold with every metric.

    Args:
        predicted: The predicted result; ``None`` when there is none.
        gold: The gold result (non-empty, or an ASK answer).
        gold_is_values: The gold is bare values, so only the paper's F1 applies.
    """
    paper = paper_f1(predicted, gold)
    predicted_empty = predicted is None or is_empty(predicted)
    if gold_is_values:
        return QuestionScores(
            paper, _exact(paper) or 0.0, None, None, None, None, None, None, None, None, None, None, predicted_empty
        )
    strict = strict_set_f1(predicted, gold)
    canonical = strict_set_f1(predicted, gold, canonical=True)
    spinach = spinach_row_f1(predicted, gold)
    gerbil = gerbil_prf(predicted, gold)
    counts = gerbil_counts(predicted, gold)
    return QuestionScores(
        paper_f1=paper,
        paper_em=_exact(paper) or 0.0,
        strict_f1=strict,
        strict_em=_exact(strict),
        strict_f1_canonical=canonical,
        strict_em_canonical=_exact(canonical),
        spinach_row_f1=spinach,
        spinach_row_em=_exact(spinach),
        grasp_f1=grasp_f1(predicted, gold),
        gerbil_precision=gerbil.precision,
        gerbil_recall=gerbil.recall,
        gerbil_f1=gerbil.f1,
        predicted_empty=predicted_empty,
        gerbil_counts=counts,
    )


def summarise(
    scores: Sequence[QuestionScores], not_scored: Sequence[str] = (), gerbil_extra: Sequence[GerbilCounts] = ()
) -> dict[str, Any]:
    """Means of every metric over the scored questions, and why others were not scored.

    Args:
        scores: One entry per scored question.
        not_scored: One reason per question left out (``gold_unavailable``, ``gold_empty``, ``drift`` ...).
        gerbil_extra: GERBIL counts of questions left out of the means that GERBIL still
            counts: those whose gold answer set is empty.

    Returns:
        ``scored``, ``not_scored`` (reason -> count), ``means`` (metric -> mean over the
        questions where it is defined, or ``None``), ``gerbil`` (GERBIL's seven QA measures
        by their GERBIL names, see :mod:`saga_kgqa.eval.qa.gerbil`, or ``None``),
        ``gerbil_questions`` (how many questions they count), ``gerbil_qald_macro_f1`` (its
        "Macro F1 QALD"), and ``empty_result_rate`` (share of scored questions whose
        prediction is missing or empty).
    """
    means: dict[str, float | None] = {}
    for metric in MEAN_METRICS:
        values = [v for v in (getattr(s, metric) for s in scores) if v is not None]
        means[metric] = sum(values) / len(values) if values else None
    counts = [s.gerbil_counts for s in scores if s.gerbil_counts is not None] + list(gerbil_extra)
    gerbil = gerbil_summary(counts)
    return {
        "scored": len(scores),
        "not_scored": dict(sorted(Counter(not_scored).items())),
        "means": means,
        "gerbil": gerbil,
        "gerbil_questions": len(counts),
        "gerbil_qald_macro_f1": None if gerbil is None else gerbil["Macro F1 QALD"],
        "empty_result_rate": sum(s.predicted_empty for s in scores) / len(scores) if scores else None,
    }

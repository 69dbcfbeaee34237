"""The pre-execution check on queries real models wrote: GRASP's released CK25 runs, re-run here (issue 13).

GRASP's two released CK25 runs (``grasp_ck25/``, gpt-4.1-mini) record every ``execute``
tool call of every trajectory. Each query is checked and run here on the CK25 graph, which we
hold completely (so what it returns is measured, not read back), by the shared path of
:mod:`bench.grounding_eval.trajectories` (its docstring defines the figures); with the
default settings, so the data-confirmed vacuous-pattern blocks count too (each block says what
to use instead).

:func:`measure_final_checks` runs the answer checks over each run's final queries against
GRASP's own per-question scores (``*.evaluation.json``).
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bench.grounding_eval.answer_checks_spinach import expected_kind
from bench.grounding_eval.trajectories import TrajectoryQuery, TrajectoryTally, measure_trajectories
from bench.smoke import first
from saga_kgqa.checks import CHECKS, CheckInput, run_checks
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.tools.execute.tool import ExecuteSettings, execute
from saga_kgqa.tools.graph_reads import Reads

GRASP_DIR = "grasp_ck25"
RUNS: tuple[str, ...] = ("gpt-41-mini.search_extended", "gpt-41-mini.search_extended_with_feedback")
_PREFIX_LINE = re.compile(r"^([A-Za-z][\w-]*): <([^<>\s]+?)>?\s*$")
_DECLARED = re.compile(r"PREFIX\s+([A-Za-z][\w-]*)?:", re.I)
_USED = re.compile(r"(?<![\w?$<])([A-Za-z][\w-]*):")


def grasp_queries(data_dir: Path) -> Iterator[tuple[str, str]]:
    """``(run:question id, sparql with its implicit prefixes declared)`` for every executed query."""
    for run in RUNS:
        path = data_dir / GRASP_DIR / f"{run}.jsonl.gz"
        try:
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                records = [json.loads(line) for line in handle if line.strip()]
        except (OSError, EOFError, ValueError) as exc:
            raise ConfigurationError(f"cannot read {path}: {exc}") from exc
        for record in records:
            messages = record.get("messages", [])
            prefixes = _implicit_prefixes(messages)
            for message in messages:
                for call in message.get("tool_calls") or []:
                    function = call.get("function", {})
                    if function.get("name") != "execute":
                        continue
                    try:
                        sparql = str(json.loads(function.get("arguments", "{}")).get("sparql", ""))
                    except ValueError:
                        continue
                    if sparql.strip():
                        yield f"{run}:{record.get('id')}", with_prefixes(sparql, prefixes)


def with_prefixes(sparql: str, prefixes: dict[str, str]) -> str:
    """The query with PREFIX lines for the implicit prefixes it uses and does not declare."""
    declared = {m.group(1) or "" for m in _DECLARED.finditer(sparql)}
    used = {m.group(1) for m in _USED.finditer(re.sub(r"<[^>]*>|\"[^\"]*\"", " ", sparql))}
    lines = [f"PREFIX {p}: <{prefixes[p]}>" for p in sorted(used - declared) if p in prefixes]
    return "\n".join([*lines, sparql])


def measure(graph: KnowledgeGraph, schema: SchemaIndex, data_dir: Path, details: int = 5) -> TrajectoryTally:
    """Check every GRASP query, run it here, and tally what the check did."""
    queries = (TrajectoryQuery(qid, sparql) for qid, sparql in grasp_queries(data_dir))
    return measure_trajectories(graph, schema, queries, ExecuteSettings(diagnose_empty=False), details)


def _implicit_prefixes(messages: list[dict[str, object]]) -> dict[str, str]:
    system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), "")
    found = {}
    for line in system.splitlines():
        match = _PREFIX_LINE.match(line.strip())
        if match:
            found[match.group(1)] = match.group(2)
    return found


@dataclass(slots=True)
class FinalCheckTally:
    """The answer checks over GRASP's final CK25 queries, split by GRASP's own score."""

    wrong: int = 0
    right: int = 0
    flagged_wrong: dict[str, int] = field(default_factory=dict)
    flagged_right: dict[str, int] = field(default_factory=dict)
    any_wrong: int = 0
    any_right: int = 0


def measure_final_checks(graph: KnowledgeGraph, schema: SchemaIndex, data_dir: Path) -> FinalCheckTally:
    """Run every answer check on GRASP's final queries; score 0 is wrong, score 1 right (others left out)."""
    tally = FinalCheckTally()
    reads = Reads(graph)
    unchecked = ExecuteSettings(type_check=False, diagnose_empty=False, record_types=False)

    def exists(iri_text: str) -> bool:
        if schema.property_schema(iri_text) is not None or iri_text in schema.classes:
            return True
        term = f"<{iri_text}>"
        return reads.ask(f"{{ {term} ?p ?o }} UNION {{ ?s ?p {term} }} UNION {{ ?s {term} ?o }}")

    for run in RUNS:
        scores = _scores(data_dir / GRASP_DIR / f"{run}.evaluation.json")
        with gzip.open(data_dir / GRASP_DIR / f"{run}.jsonl.gz", "rt", encoding="utf-8") as handle:
            records = [json.loads(line) for line in handle if line.strip()]
        for record in first(records, 10):  # the benches' smoke mode: a few records
            score = scores.get(str(record.get("id")))
            sparql = str(record.get("sparql") or "")
            if score is None or not sparql.strip() or 0.0 < score < 1.0:
                continue
            messages = record.get("messages", [])
            outcome = execute(sparql, graph=graph, schema=schema, settings=unchecked)
            result = outcome.result
            questions = record.get("questions") or [""]
            item = CheckInput(
                question=str(questions[0]),
                sparql=sparql,
                rows=list(result.rows) if result is not None else [],
                boolean=result.boolean if result is not None else None,
                expected=expected_kind(str(questions[0])),
                observations=[str(m.get("content") or "") for m in messages if m.get("role") == "tool"],
                exists=exists,
            )
            names = {f.check for f in run_checks(item, _implicit_prefixes(messages), tuple(CHECKS))}
            right = score >= 1.0
            counts = tally.flagged_right if right else tally.flagged_wrong
            for name in names:
                counts[name] = counts.get(name, 0) + 1
            if right:
                tally.right += 1
                tally.any_right += bool(names)
            else:
                tally.wrong += 1
                tally.any_wrong += bool(names)
    return tally


def _scores(path: Path) -> dict[str, float]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"cannot read {path}: {exc}") from exc
    found: dict[str, float] = {}
    for qid, entry in data.items() if isinstance(data, dict) else []:
        prediction = entry.get("prediction") if isinstance(entry, dict) else None
        if isinstance(prediction, dict) and isinstance(prediction.get("score"), int | float):
            found[str(qid)] = float(prediction["score"])
    return found

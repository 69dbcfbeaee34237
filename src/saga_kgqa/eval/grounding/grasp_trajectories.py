"""The pre-execution check on queries real models wrote: GRASP's released CK25 runs, re-run here (issue 13).

GRASP's two released CK25 runs (``grasp_ck25/``, gpt-4.1-mini) record every ``execute``
tool call of every trajectory. Each query is sent through :func:`saga_kgqa.tools.execute.tool.execute`
on the CK25 graph (guard, type check, the run) and, when the check blocked it, run once more
without the check to see whether it would have returned anything:

* ``real_empty_blocked``: of the queries that returned nothing or were blocked, the share
  the check blocked (each block says what to use instead);
* ``real_false_blocks``: blocked queries that return rows when run (target 0);
* ``checkable``: queries the guard accepted (the share that could be checked at all).

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

from saga_kgqa.checks import CHECKS, CheckInput, run_checks
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.eval.grounding.answer_checks_spinach import expected_kind
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.tools.execute.tool import ExecuteSettings, execute
from saga_kgqa.tools.graph_reads import Reads

GRASP_DIR = "grasp_ck25"
RUNS: tuple[str, ...] = ("gpt-41-mini.search_extended", "gpt-41-mini.search_extended_with_feedback")
_PREFIX_LINE = re.compile(r"^([A-Za-z][\w-]*): <([^<>\s]+?)>?\s*$")
_DECLARED = re.compile(r"PREFIX\s+([A-Za-z][\w-]*)?:", re.I)
_USED = re.compile(r"(?<![\w?$<])([A-Za-z][\w-]*):")


@dataclass(slots=True)
class TrajectoryTally:
    """Outcomes of the re-run queries."""

    queries: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    blocked_empty: int = 0
    false_blocks: list[str] = field(default_factory=list)
    missed_empty: list[str] = field(default_factory=list)
    block_texts: list[str] = field(default_factory=list)

    @property
    def checkable(self) -> int:
        """Queries the guard accepted."""
        return self.queries - self.by_status.get("rejected", 0)

    @property
    def empty_or_blocked(self) -> int:
        """Queries that returned nothing or were blocked."""
        return self.by_status.get("empty", 0) + self.by_status.get("blocked", 0)

    @property
    def empty_blocked_share(self) -> float:
        """Blocked queries (confirmed empty) over the empty-or-blocked ones."""
        return self.blocked_empty / self.empty_or_blocked if self.empty_or_blocked else 0.0


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
    """Re-run every GRASP query through execute and tally what the check did."""
    tally = TrajectoryTally()
    settings = ExecuteSettings(diagnose_empty=False)
    unchecked = ExecuteSettings(type_check=False, diagnose_empty=False, record_types=False)
    for qid, sparql in grasp_queries(data_dir):
        tally.queries += 1
        outcome = execute(sparql, graph=graph, schema=schema, settings=settings)
        tally.by_status[outcome.status] = tally.by_status.get(outcome.status, 0) + 1
        if outcome.status == "blocked":
            raw = execute(sparql, graph=graph, schema=schema, settings=unchecked)
            if raw.status == "ok" and (raw.row_count > 0 or raw.boolean):
                tally.false_blocks.append(f"{qid}: {' '.join(sparql.split())[:200]}")
            else:
                tally.blocked_empty += 1
                if len(tally.block_texts) < details:
                    tally.block_texts.append(f"{qid}: {outcome.text[:400]}")
        elif outcome.status == "empty":
            tally.missed_empty.append(f"{qid}: {' '.join(sparql.split())[:200]}")
    return tally


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
        for record in records:
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

"""The pre-execution check on queries real models wrote, whatever run they come from (issue 13).

A source yields :class:`TrajectoryQuery` items: the query as the model sent it and, when the
run recorded it, what it returned. Each query goes through
:func:`saga_kgqa.tools.execute.preflight.preflight` (guard, type check; the query itself is
never sent); its outcome is the recorded one, or, when none was recorded (GRASP's CK25 runs,
on a graph we hold completely), the query run here once without the check:

* ``real_empty_blocked``: of the accepted queries that returned nothing (no rows, or an ASK
  answered false), the share the check blocked;
* ``real_false_blocks``: blocked queries that returned rows (target 0);
* ``checkable``: queries the guard accepted; ``type_checked``: those with at least one pattern
  checked against a known type (the share the check could judge at all).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from bench.smoke import first
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.tools.execute.models import ExecuteSettings
from saga_kgqa.tools.execute.preflight import preflight
from saga_kgqa.tools.execute.tool import execute

#: What a query returned: rows (or an ASK answered true), an ASK answered false, no rows, a failure,
#: or nothing recorded that says.
Outcome = Literal["ok", "ask_false", "empty", "error", "unknown"]
_RETURNED_NOTHING: frozenset[Outcome] = frozenset({"empty", "ask_false"})
_UNCHECKED = ExecuteSettings(type_check=False, diagnose_empty=False, record_types=False)


@dataclass(frozen=True, slots=True)
class TrajectoryQuery:
    """One query a model sent, with what it returned when the run recorded it.

    Attributes:
        qid: Where it comes from (run, question, step).
        sparql: The query as sent (implicit prefixes declared where the run had any).
        recorded: The recorded outcome; ``None``: none recorded, run it on the graph here.
    """

    qid: str
    sparql: str
    recorded: Outcome | None = None


@dataclass(slots=True)
class TrajectoryTally:
    """Outcomes of the queries after the check: ``blocked``, ``rejected`` or what the query returned."""

    queries: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    type_checked: int = 0
    type_checked_empty: int = 0
    blocked_empty: int = 0
    blocked_unconfirmed: int = 0
    false_blocks: list[str] = field(default_factory=list)
    missed_empty: list[str] = field(default_factory=list)
    block_texts: list[str] = field(default_factory=list)

    @property
    def checkable(self) -> int:
        """Queries the guard accepted."""
        return self.queries - self.by_status.get("rejected", 0)

    @property
    def returned_nothing(self) -> int:
        """Accepted queries known to return nothing, blocked or not."""
        return self.blocked_empty + len(self.missed_empty)

    @property
    def empty_blocked_share(self) -> float:
        """Blocked queries that return nothing over all accepted queries that return nothing."""
        return self.blocked_empty / self.returned_nothing if self.returned_nothing else 0.0

    def share(self, count: int) -> float:
        """``count`` over all queries."""
        return count / self.queries if self.queries else 0.0


def measure_trajectories(
    graph: KnowledgeGraph,
    schema: SchemaIndex,
    queries: Iterable[TrajectoryQuery],
    settings: ExecuteSettings,
    details: int = 5,
) -> TrajectoryTally:
    """Check every query and tally the blocks against what the query returned.

    Args:
        graph: The graph behind the guard (and the run, for queries with no recorded outcome).
        schema: The schema index the check reads.
        queries: The queries of the trajectories.
        settings: The check's settings.
        details: Block explanations kept for display.
    """
    tally = TrajectoryTally()
    for query in first(queries, 20):  # the benches' smoke mode: a few queries
        tally.queries += 1
        found = preflight(query.sparql, graph=graph, schema=schema, settings=settings)
        if found.checked is None:
            _count(tally, "rejected")
            continue
        tally.type_checked += bool(found.report.checked)
        outcome = query.recorded or run_outcome(graph, query.sparql)
        blocked = found.stop is not None and found.stop.status == "blocked"
        tally.type_checked_empty += bool(found.report.checked) and outcome in _RETURNED_NOTHING
        _count(tally, "blocked" if blocked else outcome)
        shown = f"{query.qid}: {' '.join(query.sparql.split())[:200]}"
        if blocked and outcome == "ok":
            tally.false_blocks.append(shown)
        elif blocked and outcome in _RETURNED_NOTHING:
            tally.blocked_empty += 1
            if found.stop is not None and len(tally.block_texts) < details:
                tally.block_texts.append(f"{query.qid}: {found.stop.text[:400]}")
        elif blocked:
            tally.blocked_unconfirmed += 1
        elif outcome in _RETURNED_NOTHING:
            tally.missed_empty.append(shown)
    return tally


def run_outcome(graph: KnowledgeGraph, sparql: str) -> Outcome:
    """Run the query once without the check and say what it returned."""
    raw = execute(sparql, graph=graph, settings=_UNCHECKED)
    if raw.status == "empty":
        return "empty"
    if raw.status != "ok":
        return "error"
    return "ok" if raw.row_count > 0 or raw.boolean else "ask_false"


def _count(tally: TrajectoryTally, status: str) -> None:
    tally.by_status[status] = tally.by_status.get(status, 0) + 1

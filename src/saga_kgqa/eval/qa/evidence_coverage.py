"""Evidence coverage on gold queries: the share of answer rows with at least one supporting triple.

Each gold query runs behind the guard as an agent's final query would; its rows become an
:class:`~saga_kgqa.state.records.Answer` exactly as ``finalize`` writes one (values through the
one sanitiser), and :func:`~saga_kgqa.tools.evidence.gather.gather_evidence` reads their
supporting triples. A query that fails to run, or answers nothing, has no rows to support and is
counted apart (never as covered).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from saga_kgqa.errors import SagaError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.state.evidence import Evidence
from saga_kgqa.state.records import Answer
from saga_kgqa.text_safety import outside_value
from saga_kgqa.tools.evidence.gather import EvidenceSettings, gather_evidence

#: Rows a gold answer keeps (the agent's default ``answer_rows``).
ANSWER_ROWS = 1000


@dataclass
class CoverageTally:
    """Rows checked and supported over many queries, and the queries that fell short.

    Attributes:
        queries: Queries whose answer had rows to support.
        rows_checked: Answer rows evidence was read for.
        rows_supported: Of those, rows with at least one supporting triple.
        failed: Queries that did not run (id → reason).
        without_rows: Queries that ran and answered no row (nothing to support).
        short: Queries with a row left unsupported (id → (supported, checked, note)).
    """

    queries: int = 0
    rows_checked: int = 0
    rows_supported: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    without_rows: int = 0
    short: dict[str, tuple[int, int, str]] = field(default_factory=dict)

    @property
    def coverage(self) -> float:
        """Share of checked rows with a supporting triple (0.0 when nothing was checked: no evidence is no coverage)."""
        return self.rows_supported / self.rows_checked if self.rows_checked else 0.0

    def add(self, qid: str, evidence: Evidence | None, error: str | None = None) -> None:
        """Count one query's evidence (``None`` with ``error``: it did not run)."""
        if evidence is None:
            self.failed[qid] = error or "did not run"
            return
        if evidence.rows_checked == 0:
            self.without_rows += 1
            return
        self.queries += 1
        self.rows_checked += evidence.rows_checked
        self.rows_supported += evidence.rows_supported
        if evidence.rows_supported < evidence.rows_checked:
            self.short[qid] = (evidence.rows_supported, evidence.rows_checked, evidence.note)


def gold_evidence(
    graph: KnowledgeGraph,
    sparql: str,
    *,
    prefixes: Mapping[str, str],
    label_predicates: Sequence[str],
    settings: EvidenceSettings,
) -> Evidence:
    """Run ``sparql`` behind the guard and read the evidence of its answer.

    Raises:
        SagaError: The query was refused or failed to run.
    """
    result = graph.query(sparql, ExecutionLimits(deadline_s=settings.deadline_s, max_rows=ANSWER_ROWS))
    rows = tuple({var: outside_value(term.value, None) for var, term in row.items()} for row in result.rows)
    answer = Answer(variables=tuple(result.variables), rows=rows, boolean=result.boolean, row_count=len(rows))
    return gather_evidence(
        graph, sparql, answer, prefixes=prefixes, label_predicates=label_predicates, settings=settings
    )


def tally_gold(
    graph: KnowledgeGraph,
    queries: Sequence[tuple[str, str]],
    *,
    label_predicates: Sequence[str],
    settings: EvidenceSettings,
    tally: CoverageTally | None = None,
) -> CoverageTally:
    """Add the evidence coverage of each ``(id, sparql)`` gold query on ``graph`` to ``tally``."""
    tally = tally if tally is not None else CoverageTally()
    for qid, sparql in queries:
        try:
            evidence = gold_evidence(graph, sparql, prefixes={}, label_predicates=label_predicates, settings=settings)
        except SagaError as exc:
            tally.add(qid, None, f"{type(exc).__name__}: {exc.message}")
            continue
        tally.add(qid, evidence)
    return tally

"""Bounded template queries the schema builders send through any :class:`KGBackend`.

Every query built here carries a LIMIT and only escaped IRIs, so the same builder runs
on the embedded store and on a remote endpoint. When a LIMIT is reached the runner
records a note instead of failing: the index is then marked as possibly incomplete.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from saga_kgqa.kg.core.backend import ExecutionLimits, KGBackend
from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.core.result import Row
from saga_kgqa.kg.guard.sparql_terms import iri


def path_alternative(iris: Sequence[str]) -> str:
    """Render one predicate, or an alternative path of several, with every IRI escaped."""
    if len(iris) == 1:
        return iri(iris[0])
    return "(" + "|".join(iri(value) for value in iris) + ")"


def values_clause(variable: str, iris: Iterable[str]) -> str:
    """Render ``VALUES ?variable { <a> <b> ... }`` with every IRI escaped."""
    return f"VALUES ?{variable} {{ " + " ".join(iri(value) for value in iris) + " }"


def batched(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    """Yield consecutive slices of at most ``size`` items."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


#: How many times its runner's deadline a whole-graph template query gets.
WHOLE_GRAPH_FACTOR = 10


@dataclass(slots=True)
class TemplateRunner:
    """Runs bounded SELECT templates and collects notes about anything cut short.

    Attributes:
        backend: The store or endpoint to read.
        deadline_s: Wall-clock budget of each query.
        notes: Remarks for the index (limits reached, queries that timed out).
        queries: Number of queries sent so far.
    """

    backend: KGBackend
    deadline_s: float = 60.0
    notes: list[str] = field(default_factory=list)
    queries: int = 0

    def select(
        self, body: str, *, limit: int, what: str, aggregate: bool = False, whole_graph: bool = False
    ) -> list[Row]:
        """Run ``body`` with ``LIMIT limit`` appended and return its rows.

        Args:
            body: A SELECT query without a top-level LIMIT, built from escaped terms.
            limit: The most rows wanted.
            what: A short description used in the note when the limit is reached.
            aggregate: The query returns a fixed number of aggregate rows, so reaching
                the limit is expected and not noted.
            whole_graph: The query reads every triple of a pattern that grows with the graph (the
                predicates in use, every typed resource), whatever its LIMIT: an embedded store runs
                it in its killable worker, under the deadline and beside the caller, not in-process.

        Raises:
            BackendError: The backend failed (typed, see :mod:`saga_kgqa.errors`).
        """
        query = from_template(f"{body}\nLIMIT {limit}", "SELECT", limit=limit, bounded=not whole_graph)
        # A whole-graph read in the worker is stopped at its deadline; in-process it was never stopped at all, and at
        # 10M triples on a busy machine it takes more than a minute: it gets ten times the budget, not none.
        deadline = self.deadline_s * WHOLE_GRAPH_FACTOR if whole_graph else self.deadline_s
        result = self.backend.execute(query, ExecutionLimits(deadline_s=deadline, max_rows=limit))
        self.queries += 1
        if not aggregate and (result.truncated or len(result.rows) >= limit):
            self.notes.append(f"{what}: stopped at {limit} rows; the index may be incomplete")
        if not result.complete:
            self.notes.append(f"{what}: the endpoint reported a partial result")
        return result.rows

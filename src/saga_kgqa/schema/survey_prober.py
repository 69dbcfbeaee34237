"""The survey's probe runner: bounded template probes against one budget of requests and seconds.

Each probe is a template query (:func:`~saga_kgqa.kg.core.query.from_template`, a LIMIT) sent through
:class:`~saga_kgqa.kg.knowledge_graph.KnowledgeGraph`; it counts against the survey's request budget and
overall deadline, and a probe that fails is recorded (the endpoint's text as data), never raised.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from threading import Lock

from saga_kgqa.errors import SagaError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.core.result import Row
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.redaction import redact_text
from saga_kgqa.schema.queries import values_clause
from saga_kgqa.schema.survey_model import ExampleQuery, ProbeFailure, SurveyLimits
from saga_kgqa.schema.survey_values import misbehaved_count, parse_count
from saga_kgqa.text_safety import graph_text


@dataclass(slots=True)
class Prober:
    """Sends bounded template probes, counts them against the budget and records failures."""

    graph: KnowledgeGraph
    limits: SurveyLimits
    scope: Sequence[str]
    requests: int = 0
    failures: list[ProbeFailure] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    _lock: Lock = field(default_factory=Lock)

    def remaining_s(self) -> float:
        """Seconds left of the survey's overall budget."""
        return self.limits.total_s - (time.monotonic() - self.started)

    def _take(self, what: str) -> bool:
        with self._lock:
            if self.requests >= self.limits.max_requests():
                self.failures.append(ProbeFailure(what=what, error="request budget spent"))
                return False
            if self.remaining_s() <= 0:
                error = f"survey deadline of {self.limits.total_s:g} s passed"
                self.failures.append(ProbeFailure(what=what, error=error))
                return False
            self.requests += 1
            return True

    def _probe_limits(self, max_rows: int) -> ExecutionLimits:
        """Each probe's own bound, cut to what is left of the overall one."""
        return ExecutionLimits(deadline_s=max(0.1, min(self.limits.deadline_s, self.remaining_s())), max_rows=max_rows)

    def fail(self, what: str, error: str) -> None:
        """Record a failed probe; the endpoint's text is data: credentials hidden, sanitised, capped."""
        with self._lock:
            self.failures.append(ProbeFailure(what=graph_text(what, 300), error=graph_text(redact_text(error), 200)))

    def count(self, row: Row, variable: str, what: str) -> int | None:
        """The non-negative integer an endpoint gave for ``variable``; a malformed one is recorded, not raised."""
        term = row.get(variable)
        found = None if term is None else parse_count(term)
        if term is not None and found is None:
            with self._lock:
                seen = any(f.what == graph_text(what, 300) and "source misbehaved" in f.error for f in self.failures)
            if not seen:  # one note per probe, not one per hostile row
                self.fail(what, misbehaved_count(what, term).message)
        return found

    def scoped(self, pattern: str) -> str:
        """``pattern`` matched within the scoped graphs (unchanged when the survey has no scope)."""
        if not self.scope:
            return pattern
        # GRAPH rather than FROM: the embedded store's union default graph ignores FROM.
        return f"GRAPH ?scope {{ {pattern} }} {values_clause('scope', self.scope)}"

    def select(
        self, head: str, where: str, *, tail: str = "", limit: int, what: str, scope: bool = True
    ) -> list[Row] | None:
        """Run ``head WHERE { where } tail LIMIT limit``; ``None`` when it failed or was not sent.

        ``where`` is matched within the scoped graphs unless ``scope`` is false (it scopes itself).
        """
        if not self._take(what):
            return None
        if scope:
            where = self.scoped(where)
        text = f"{head}\nWHERE {{ {where} }}\n{tail}\nLIMIT {limit}"
        try:
            # Unbounded: an aggregate's cost grows with the class or the graph, so the deadline
            # must hold (the embedded store runs it in its killable, memory-capped worker).
            query = from_template(text, "SELECT", limit=limit, bounded=False)
            result = self.graph.run(query, self._probe_limits(limit))
        except SagaError as exc:
            self.fail(what, f"{type(exc).__name__}: {exc}")
            return None
        return result.rows

    def check_example(self, sparql: str) -> ExampleQuery:
        """Run an example query through the read-only guard, as a model's query would be."""
        if not self._take("example query"):
            return ExampleQuery(sparql=sparql, ran=False, error="request budget spent")
        try:
            result = self.graph.query(sparql, self._probe_limits(10))
        except SagaError as exc:
            return ExampleQuery(sparql=sparql, ran=False, error=graph_text(redact_text(f"{type(exc).__name__}: {exc}")))
        return ExampleQuery(sparql=sparql, ran=True, rows=len(result.rows))

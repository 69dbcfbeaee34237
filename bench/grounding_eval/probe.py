"""The real tools behind the grounding measurement's probe: lookup, the pre-execution check, reads.

See :class:`~bench.grounding_eval.measurement.GroundingProbe`.

* lookup is :meth:`ToolView.lookup`, one toolkit per compatibility mode;
* the pre-execution check is :func:`~saga_kgqa.tools.preflight.preflight`, what
  ``execute`` runs before it sends a query (guard, the query's type patterns, the type
  check with its verifying ASK); the query itself is never run: gold queries can take
  seconds, and whether they *would* run is the question;
* subjects are sampled by running each property use's block through the guard;
* the raw neighbourhood is SPINACH's JSON, with ids shortened exactly as lookup does.
"""

from __future__ import annotations

from collections.abc import Mapping

from bench.grounding_eval.gold_patterns import PropertyUse
from bench.grounding_eval.measurement import MODES, LookupView
from bench.grounding_eval.spinach_format import outgoing_edges, spinach_entry
from saga_kgqa.errors import QueryRejected, QueryTimeout, SagaError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import CompatibilityMode, SchemaIndex
from saga_kgqa.state import TypeState
from saga_kgqa.tools.context import ToolCaps
from saga_kgqa.tools.execute.preflight import preflight
from saga_kgqa.tools.render import compact_iri
from tests.support.grounding import tool_view


class ToolkitProbe:
    """Measures the project's own tools on one graph."""

    def __init__(
        self,
        graph: KnowledgeGraph,
        schema: SchemaIndex,
        *,
        prefixes: Mapping[str, str] | None = None,
        sample_deadline_s: float = 10.0,
        caps: ToolCaps | None = None,
    ) -> None:
        """Build one toolkit per compatibility mode over ``graph``.

        Args:
            graph: The graph behind its guard.
            schema: The schema index lookup and the check use.
            prefixes: Extra prefixes for compact ids (the guard must know them too).
            sample_deadline_s: Budget of each query sampling a subject's entities.
            caps: The tools' caps and hiding settings (the defaults when omitted).
        """
        self._graph = graph
        self._schema = schema
        self._toolkits = {mode: tool_view(graph, schema, mode=mode, prefixes=prefixes, caps=caps) for mode in MODES}
        self._prefixes = self._toolkits["subclass"].prefixes
        self._sample_deadline_s = sample_deadline_s
        self._samples: dict[str, list[str]] = {}
        self.notes: list[str] = []

    def lookup(self, entity: str, mode: CompatibilityMode) -> LookupView:
        """Look ``entity`` up with the toolkit of ``mode``."""
        result = self._toolkits[mode].lookup(f"<{entity}>")
        return LookupView(
            entity=entity,
            types=frozenset(ref.iri for ref in result.types),
            kept=frozenset(kept.info.property.iri for kept in result.kept),
            hidden=frozenset(hidden.info.property.iri for hidden in result.hidden),
            text=result.text,
        )

    def subjects(self, use: PropertyUse, limit: int) -> list[str]:
        """Entities the subject variable binds in its block (none when the sample times out)."""
        text = use.binding_query(limit)
        if text not in self._samples:
            variable = use.subject[1:]
            try:
                result = self._graph.query(text, ExecutionLimits(deadline_s=self._sample_deadline_s, max_rows=limit))
            except QueryTimeout:
                self.notes.append(f"sampling {use.subject} for <{use.property_iri}> timed out")
                result = None
            rows = result.rows if result is not None else []
            self._samples[text] = [row[variable].value for row in rows if variable in row]
        return self._samples[text]

    def blocked(
        self, sparql: str, theta: TypeState, mode: CompatibilityMode, *, vacuous: bool = False
    ) -> tuple[str, ...]:
        """The patterns the pre-execution type check blocks (the query itself is not run).

        With ``vacuous``, also the required patterns the graph cannot match: a block the
        user sees just the same, so false blocks count them; detection of a swapped
        property is the type check's alone.

        Raises:
            QueryRejected: The guard refused the query.
        """
        checks = preflight(sparql, graph=self._graph, schema=self._schema, theta=theta, mode=mode)
        if checks.checked is None:
            error = checks.stop.error if checks.stop is not None else None
            message = error.message if error is not None else "the guard refused the query"
            raise QueryRejected(message, reason=(error.reason if error is not None else None) or "guard")
        self.notes.extend(note for note in checks.notes if "could not" in note)
        found = tuple(blocked.pattern for blocked in checks.report.blocked)
        return found + tuple(item.pattern for item in checks.vacuous) if vacuous else found

    def matches_nothing(self, sparql: str) -> bool:
        """Whether a query returns no rows, or only zero counts and false, on the graph.

        ``False`` when the query fails or runs out of time: an unproven emptiness never
        excuses a block.
        """
        return matches_nothing(self._graph, sparql, deadline_s=self._sample_deadline_s)

    def raw_neighbourhood(self, entity: str) -> tuple[str, int]:
        """SPINACH's JSON of ``entity`` (ids shortened as lookup shortens them) and its number of values."""

        def label(prop: str) -> str | None:
            entry = self._schema.property_schema(prop)
            return entry.label if entry is not None else None

        edges = outgoing_edges(self._graph, entity, property_labels=label)
        return spinach_entry(edges, lambda value: compact_iri(value, self._prefixes)), len(edges)


def matches_nothing(graph: KnowledgeGraph, sparql: str, *, deadline_s: float = 30.0) -> bool:
    """Whether a query returns no rows, or only zero counts and false, on the graph.

    ``False`` when the query fails or runs out of time: an unproven emptiness never
    excuses a block.
    """
    try:
        rows = graph.query(sparql, ExecutionLimits(deadline_s=deadline_s, max_rows=5)).rows
    except SagaError:
        return False
    return all(term.value in ("0", "false") for row in rows for term in row.values())

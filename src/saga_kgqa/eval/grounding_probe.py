"""The real tools behind :class:`~saga_kgqa.eval.grounding.GroundingProbe`: lookup, the pre-execution check, reads.

* lookup is :meth:`GroundingToolkit.lookup`, one toolkit per compatibility mode;
* the pre-execution check is what ``tools.execute.execute`` runs before it sends a query
  (guard, algebra, the query's type patterns, :func:`check_query_types` with the
  verifying ASK), without running the query itself: gold queries can take seconds, and
  whether they *would* run is the question;
* subjects are sampled by running each property use's block through the guard;
* the raw neighbourhood is SPINACH's JSON, with ids shortened exactly as lookup does.
"""

from __future__ import annotations

from collections.abc import Mapping

from rdflib.plugins.sparql.parserutils import CompValue

from saga_kgqa.errors import QueryTimeout
from saga_kgqa.eval.gold_patterns import PropertyUse
from saga_kgqa.eval.grounding import MODES, LookupView
from saga_kgqa.eval.spinach_format import outgoing_edges, spinach_entry
from saga_kgqa.kg.backend import ExecutionLimits
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.sparql_algebra import parse_algebra
from saga_kgqa.schema import CompatibilityMode, SchemaIndex
from saga_kgqa.state import TypeState, extract_type_patterns
from saga_kgqa.tools.render import compact_iri
from saga_kgqa.tools.toolkit import GroundingToolkit
from saga_kgqa.tools.type_check import TypeCheckSettings, check_query_types


class ToolkitProbe:
    """Measures the project's own tools on one graph."""

    def __init__(
        self,
        graph: KnowledgeGraph,
        schema: SchemaIndex,
        *,
        prefixes: Mapping[str, str] | None = None,
        sample_deadline_s: float = 10.0,
    ) -> None:
        """Build one toolkit per compatibility mode over ``graph``.

        Args:
            graph: The graph behind its guard.
            schema: The schema index lookup and the check use.
            prefixes: Extra prefixes for compact ids (the guard must know them too).
            sample_deadline_s: Budget of each query sampling a subject's entities.
        """
        self._graph = graph
        self._schema = schema
        self._toolkits = {mode: GroundingToolkit(graph, schema, mode=mode, prefixes=prefixes) for mode in MODES}
        self._prefixes = self._toolkits["subclass"].prefixes
        self._sample_deadline_s = sample_deadline_s
        self._samples: dict[str, list[str]] = {}
        self._analysed: dict[str, tuple[CompValue, TypeState]] = {}
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

    def blocked(self, sparql: str, theta: TypeState, mode: CompatibilityMode) -> tuple[str, ...]:
        """The patterns the pre-execution check blocks, as ``execute`` would run it.

        Raises:
            QueryRejected: The guard refused the query.
        """
        root, pattern_types = self._analyse(sparql)
        report = check_query_types(
            root,
            graph=self._graph,
            schema=self._schema,
            theta=theta,
            pattern_types=pattern_types,
            display_prefixes=self._prefixes,
            settings=TypeCheckSettings(mode=mode),
        )
        return tuple(blocked.pattern for blocked in report.blocked)

    def _analyse(self, sparql: str) -> tuple[CompValue, TypeState]:
        if sparql not in self._analysed:
            checked = self._graph.check(sparql)
            prefixes = dict(self._graph.profile.prefixes)
            pattern_types = extract_type_patterns(
                checked.text,
                type_predicates=self._schema.type_predicates,
                subclass_predicates=self._schema.subclass_predicates,
                prefixes=prefixes,
            )
            self._analysed[sparql] = (parse_algebra(checked.text, prefixes), pattern_types)
        return self._analysed[sparql]

    def raw_neighbourhood(self, entity: str) -> tuple[str, int]:
        """SPINACH's JSON of ``entity`` (ids shortened as lookup shortens them) and its number of values."""

        def label(prop: str) -> str | None:
            entry = self._schema.property_schema(prop)
            return entry.label if entry is not None else None

        edges = outgoing_edges(self._graph, entity, property_labels=label)
        return spinach_entry(edges, lambda value: compact_iri(value, self._prefixes)), len(edges)

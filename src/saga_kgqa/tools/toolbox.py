"""The knowledge-graph tools as the agent graph uses them, configured per run by the context switches.

One :class:`SagaToolbox` holds a graph behind its guard and the full schema index. For
each run it hands out a :class:`ToolView` that applies the run's switches: the schema
coverage mask, the compatibility mode, the observation byte cap, and ``type_filter`` (off: the lookup sees no
domains, so nothing is hidden, and execute skips its pre-execution type check). Views
and their name indexes are built once per distinct setting and reused.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Unpack

from saga_kgqa.config.context import SagaContext
from saga_kgqa.errors import SagaError
from saga_kgqa.kg.guard.sparql_terms import iri as sparql_iri
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import CompatibilityMode, SchemaIndex
from saga_kgqa.state import TypeState
from saga_kgqa.tools import GroundingToolkit, LookupResult, PropertyExamplesResult, SearchResult, ToolCaps
from saga_kgqa.tools.context import ToolboxOptions, ToolOptions, checked_options
from saga_kgqa.tools.execute.tool import ExecuteOutcome, ExecuteSettings, execute

if TYPE_CHECKING:
    from saga_kgqa.tools.patterns.ranking import Ranking
    from saga_kgqa.tools.patterns.tool import PatternsResult


@dataclass(frozen=True, slots=True)
class _ViewKey:
    coverage: float
    seed: int
    type_filter: bool
    mode: CompatibilityMode
    observation_bytes: int
    lookup_values: int
    language: str = "en"


class ToolView:
    """The tools under one run's switches."""

    def __init__(self, toolkit: GroundingToolkit, graph: KnowledgeGraph, schema: SchemaIndex, *, type_filter: bool):
        """Hold a toolkit over the (possibly masked) schema and the graph for execute."""
        self.toolkit = toolkit
        self.graph = graph
        self.schema = schema
        self.type_filter = type_filter

    @property
    def prefixes(self) -> dict[str, str]:
        """Prefixes of the compact ids the tools show."""
        return self.toolkit.prefixes

    def search(self, text: str) -> SearchResult:
        """Search names (see :meth:`GroundingToolkit.search`)."""
        return self.toolkit.search(text)

    def lookup(self, entity: str, *, theta: TypeState | None, step: int) -> LookupResult:
        """Look up an entity with Θ (see :meth:`GroundingToolkit.lookup`)."""
        return self.toolkit.lookup(entity, type_state=theta, step=step)

    def patterns(
        self, entity: str, *, question: str, theta: TypeState | None, ranking: Ranking, top_n: int
    ) -> PatternsResult:
        """The entity's patterns ranked for the question (see :func:`saga_kgqa.tools.patterns.tool.patterns_tool`)."""
        from saga_kgqa.tools.patterns.tool import patterns_tool

        return patterns_tool(
            self.toolkit.context,
            entity,
            question=question,
            ranking=ranking,
            top_n=top_n,
            type_state=theta,
            type_filter=self.type_filter,
        )

    def examples(self, prop: str) -> PropertyExamplesResult:
        """Property examples (see :meth:`GroundingToolkit.property_examples`)."""
        return self.toolkit.property_examples(prop)

    def execute(self, sparql: str, *, theta: TypeState | None, step: int, settings: ExecuteSettings) -> ExecuteOutcome:
        """Run a model-written query: guard, type check (when ``type_filter``), run, diagnose."""
        return execute(
            sparql,
            graph=self.graph,
            schema=self.schema,
            theta=theta,
            mode=self.toolkit.context.mode,
            settings=replace(settings, type_check=settings.type_check and self.type_filter),
            step=step,
        )

    def mentions(self, iri: str) -> bool:
        """True when the schema index or the graph holds the IRI (one bounded ASK); a failed probe says True.

        The answer checks ask it before calling an unseen IRI possibly invented.
        """
        schema = self.toolkit.context.schema
        if schema.property_schema(iri) is not None or iri in schema.classes:
            return True
        term = sparql_iri(iri)
        try:
            return self.toolkit.context.reads().ask(
                f"{{ {term} ?p ?o }} UNION {{ ?s ?p {term} }} UNION {{ ?s {term} ?o }}"
            )
        except SagaError:
            return True

    def resolve(self, argument: str) -> str | None:
        """The IRI of a prefixed name, ``<iri>`` or absolute IRI, or ``None`` when it is not one."""
        try:
            return self.toolkit.context.resolve(argument, role="class")
        except Exception:
            return None


class SagaToolbox:
    """A graph, its schema index and the tool views built over them."""

    def __init__(self, graph: KnowledgeGraph, schema: SchemaIndex, **options: Unpack[ToolboxOptions]) -> None:
        """Hold the graph and the full schema index.

        Args:
            graph: The graph behind its read-only guard.
            schema: The full schema index (coverage masks are derived from it).
            **options: How the tools read and name the graph
                (:class:`~saga_kgqa.tools.context.ToolboxOptions`); each run's view adds its
                compatibility mode and language, and its caps take the run's observation bytes
                and lookup sample values. ``dialect`` comes from
                :func:`saga_kgqa.app.dialects.tool_dialect` (plain RDF when unset).
        """
        self.graph = graph
        self.schema = schema
        checked_options(options, ToolboxOptions)
        # Copies: a caller's later change to its prefixes or name predicates does not reach the views.
        self._options: ToolboxOptions = {
            **options,
            "prefixes": dict(options.get("prefixes") or {}),
            "extra_name_predicates": tuple(options.get("extra_name_predicates", ())),
        }
        self.dialect = options.get("dialect")
        self._views: dict[_ViewKey, ToolView] = {}
        self._lock = threading.Lock()

    def view(self, context: SagaContext) -> ToolView:
        """The tools under a run's switches (built on first use, then reused)."""
        key = _ViewKey(
            context.schema_coverage,
            context.coverage_seed,
            context.type_filter,
            context.matching,
            context.max_observation_bytes,
            context.lookup_values,
            context.language,  # one view per question language: names are read in it
        )
        with self._lock:
            found = self._views.get(key)
            if found is None:
                schema = self.schema if key.coverage >= 1.0 else self.schema.with_coverage(key.coverage, key.seed)
                lookup_schema = schema if key.type_filter else without_domains(schema)
                caps = _run_caps(self._options.get("caps") or ToolCaps(), key.observation_bytes, key.lookup_values)
                options: ToolOptions = {**self._options, "caps": caps, "mode": key.mode, "language": context.language}
                toolkit = GroundingToolkit(self.graph, lookup_schema, **options)
                found = ToolView(toolkit, self.graph, schema, type_filter=key.type_filter)
                self._views[key] = found
            return found


def _run_caps(caps: ToolCaps, observation_bytes: int, lookup_values: int) -> ToolCaps:
    """The caps with the run's observation byte cap and lookup sample values (from the context)."""
    text = replace(caps.text, observation_bytes=observation_bytes)
    return replace(caps, text=text, values_per_property=lookup_values)


def without_domains(schema: SchemaIndex) -> SchemaIndex:
    """A copy of the index with every domain unknown: lookup then hides nothing (the ``type_filter`` ablation)."""
    properties = {
        iri: entry.model_copy(update={"domain": frozenset(), "domain_source": "none"})
        for iri, entry in schema.properties.items()
    }
    return schema.model_copy(update={"properties": properties})

"""The knowledge-graph tools as the agent graph uses them, configured per run by the context switches.

One :class:`SagaToolbox` holds a graph behind its guard and the full schema index. For
each run it hands out a :class:`ToolView` that applies the run's switches: the schema
coverage mask, the compatibility mode, the observation byte cap, and ``type_filter`` (off: the lookup sees no
domains, so nothing is hidden, and execute skips its pre-execution type check). Views
and their name indexes are built once per distinct setting and reused.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Unpack

from saga_kgqa.config.context import SagaContext
from saga_kgqa.errors import SagaError
from saga_kgqa.kg.guard.sparql_terms import iri as sparql_iri
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import CompatibilityMode, SchemaIndex
from saga_kgqa.state import TypeState
from saga_kgqa.tools.context import ToolboxOptions, ToolCaps, ToolContext, ToolOptions, checked_options
from saga_kgqa.tools.lookup.tool import lookup_entity
from saga_kgqa.tools.render import PrefixIndex
from saga_kgqa.tools.results import LookupResult, PropertyExamplesResult, SearchResult
from saga_kgqa.tools.search.tool import property_examples, search_names

if TYPE_CHECKING:
    # The execute path (the guard's SPARQL parser) loads on the first execute: saga lookup never pays for it.
    from saga_kgqa.tools.execute.tool import ExecuteOutcome, ExecuteSettings
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
    #: A view outside a run (:meth:`SagaToolbox.default_view`) is never shared with a run's view.
    outside_run: bool = False


class ToolView:
    """The tools over one graph under one run's switches: each method calls a tool function with the view's context."""

    def __init__(self, context: ToolContext, graph: KnowledgeGraph, schema: SchemaIndex, *, type_filter: bool):
        """Hold the tools' context and the graph and (possibly masked) schema index execute checks against.

        Args:
            context: What search, lookup, examples and patterns share (caps, prefixes, name index); its
                schema index is ``schema`` without domains when ``type_filter`` is off.
            graph: The graph behind its guard.
            schema: The schema index of the run (coverage-masked when the run asks for it).
            type_filter: Whether execute runs its pre-execution type check and patterns hide conflicts.
        """
        self.context = context
        self.graph = graph
        self.schema = schema
        self.type_filter = type_filter

    @property
    def prefixes(self) -> dict[str, str]:
        """Prefixes of the compact ids the tools show (and accept in arguments)."""
        return dict(self.context.prefixes)

    @functools.cached_property
    def prefix_index(self) -> PrefixIndex:
        """The same prefixes indexed once for the view's life: the controller's prompts shorten IRIs with it."""
        return PrefixIndex(self.context.prefixes)

    def search(self, text: str) -> SearchResult:
        """Find entities, classes and properties whose label, alias or name matches ``text``.

        Matches are exact, then prefix, then every word, then substring, then fuzzy.
        Entities show their types and description; properties their domain and range.

        Args:
            text: A name or part of one ("Karen Brant", "member of").

        Returns:
            Up to ``caps.entity_hits`` entities and classes and ``caps.property_hits``
            properties, best first. ``type_delta`` is empty: types enter Θ on lookup.

        Raises:
            BackendError: The graph failed while building the index or reading hits.
        """
        return search_names(self.context, text)

    def lookup(self, entity: str, *, theta: TypeState | None = None, step: int | None = None) -> LookupResult:
        """Show an entity's types and its outgoing properties that fit those types.

        A property is hidden only when its known domain conflicts with every known type
        of the entity (declared types, plus pattern and trace types for it in ``theta``);
        unknown domains are kept. Kept properties whose range fits the expected answer
        type in ``theta`` are listed first.

        Args:
            entity: ``<iri>``, a prefixed name (``pv:Employee``) or an absolute IRI.
            theta: The agent's Θ, if any.
            step: The agent step, recorded on the Θ evidence.

        Returns:
            The lookup; ``type_delta`` records the declared types, and
            ``needs_prune_fallback`` is set when no type is known at all.

        Raises:
            ToolInputError: ``entity`` is text, a literal, a blank node or has an unknown prefix.
            BackendError: The graph failed.
        """
        return lookup_entity(self.context, entity, type_state=theta, step=step)

    def patterns(
        self, entity: str, *, question: str, theta: TypeState | None, ranking: Ranking, top_n: int
    ) -> PatternsResult:
        """The entity's patterns ranked for the question (see :func:`saga_kgqa.tools.patterns.tool.patterns_tool`)."""
        from saga_kgqa.tools.patterns.tool import patterns_tool

        return patterns_tool(
            self.context,
            entity,
            question=question,
            ranking=ranking,
            top_n=top_n,
            type_state=theta,
            type_filter=self.type_filter,
        )

    def examples(self, prop: str) -> PropertyExamplesResult:
        """Show a property's schema and a few real triples that use it, labelled.

        Args:
            prop: The property as ``<iri>``, a prefixed name or an absolute IRI.

        Returns:
            The examples, or, when no triple uses it, properties with similar names.

        Raises:
            ToolInputError: ``prop`` is not an IRI.
            BackendError: The graph failed.
        """
        return property_examples(self.context, prop)

    def execute(self, sparql: str, *, theta: TypeState | None, step: int, settings: ExecuteSettings) -> ExecuteOutcome:
        """Run a model-written query: guard, type check (when ``type_filter``), run, diagnose."""
        from saga_kgqa.tools.execute.tool import execute

        return execute(
            sparql,
            graph=self.graph,
            schema=self.schema,
            theta=theta,
            mode=self.context.mode,
            settings=replace(settings, type_check=settings.type_check and self.type_filter),
            step=step,
        )

    def mentions(self, iri: str) -> bool:
        """True when the schema index or the graph holds the IRI (one bounded ASK); a failed probe says True.

        The answer checks ask it before calling an unseen IRI possibly invented.
        """
        schema = self.context.schema
        if schema.property_schema(iri) is not None or iri in schema.classes:
            return True
        term = sparql_iri(iri)
        try:
            return self.context.reads().ask(f"{{ {term} ?p ?o }} UNION {{ ?s ?p {term} }} UNION {{ ?s {term} ?o }}")
        except SagaError:
            return True

    def resolve(self, argument: str) -> str | None:
        """The IRI of a prefixed name, ``<iri>`` or absolute IRI, or ``None`` when it is not one."""
        try:
            return self.context.resolve(argument, role="class")
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
        return self._view(
            _ViewKey(
                context.schema_coverage,
                context.coverage_seed,
                context.type_filter,
                context.matching,
                context.max_observation_bytes,
                context.lookup_values,
                context.language,  # one view per question language: names are read in it
            )
        )

    def default_view(
        self, *, mode: CompatibilityMode = "subclass", lookup_values: int | None = None, language: str = "en"
    ) -> ToolView:
        """The tools outside a run (a person's ``saga lookup``, a source tool): this toolbox's own caps.

        The whole schema index, the type filter on, and the caps the toolbox was opened with
        (a run's view takes its observation bytes and lookup sample values from the run's context
        instead). ``lookup_values`` replaces the caps' sample values per property when given.

        Raises:
            ConfigurationError: ``language`` is not a language tag.
        """
        caps = self._options.get("caps") or ToolCaps()
        values = caps.values_per_property if lookup_values is None else lookup_values
        return self._view(_ViewKey(1.0, 0, True, mode, caps.text.observation_bytes, values, language, outside_run=True))

    def _view(self, key: _ViewKey) -> ToolView:
        with self._lock:
            found = self._views.get(key)
            if found is None:
                schema = self.schema if key.coverage >= 1.0 else self.schema.with_coverage(key.coverage, key.seed)
                lookup_schema = schema if key.type_filter else without_domains(schema)
                caps = _run_caps(self._options.get("caps") or ToolCaps(), key.observation_bytes, key.lookup_values)
                options: ToolOptions = {**self._options, "caps": caps, "mode": key.mode, "language": key.language}
                context = ToolContext(self.graph, lookup_schema, **options)
                found = ToolView(context, self.graph, schema, type_filter=key.type_filter)
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

"""The grounding functions over named sources, in one place for the CLI, the agent and the MCP server.

Each takes a :class:`~saga_kgqa.sources.session.SourceSet` and a source *name* and returns
a pydantic result whose ``text`` is the capped observation for a model. Where a function
overlaps an existing tool it *is* that tool on the named source: search and lookup are the
default view of the source's one toolbox (:meth:`~saga_kgqa.sources.session.OpenSource.toolbox`)
searching its persistent name index, and execute is :func:`~saga_kgqa.tools.execute.tool.execute`
with that toolbox's schema index (the one rule, as the run's re-run of the answer); there is no second copy of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from saga_kgqa.sources.bridging import BridgeResult, bridge_sources
from saga_kgqa.sources.cross_hints import elsewhere
from saga_kgqa.sources.expansion import Expansion, expand_entity
from saga_kgqa.sources.pasted_keys import rematch_pasted
from saga_kgqa.sources.resolution import EntityResolution, name_index, resolve_entity
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.sources.summary import SourceSummary, source_summary
from saga_kgqa.state import TypeState
from saga_kgqa.tools.execute.models import ExecuteOutcome, ExecuteSettings
from saga_kgqa.tools.execute.tool import execute
from saga_kgqa.tools.results import LookupResult, SearchResult

if TYPE_CHECKING:
    from saga_kgqa.tools.toolbox import ToolView

__all__ = [
    "BridgeResult",
    "EntityResolution",
    "Expansion",
    "SourceSummary",
    "bridge_sources",
    "execute_on_source",
    "expand_entity",
    "lookup_on_source",
    "resolve_entity",
    "search_source",
    "source_summary",
    "source_view",
]


def source_view(sources: SourceSet, source: str) -> ToolView:
    """The tools over a named source outside a run: its toolbox's default view, searching its full-text name index.

    Raises:
        UnknownName: No source has that name.
        ConfigurationError: The source was opened outside the composition root (it has no toolbox).
        BackendError: The graph failed while the toolbox's schema index or the name index was built.
    """
    opened = sources.get(source)
    view = opened.toolbox().default_view()
    view.context.use_name_index(name_index(opened))
    return view


def search_source(sources: SourceSet, source: str, text: str) -> SearchResult:
    """The search tool on a named source (entities, classes and properties by name)."""
    return source_view(sources, source).search(text)


def lookup_on_source(
    sources: SourceSet, source: str, entity: str, *, type_state: TypeState | None = None
) -> LookupResult:
    """The lookup tool on a named source (the type filter uses its toolbox's schema index)."""
    return source_view(sources, source).lookup(entity, theta=type_state)


def execute_on_source(
    sources: SourceSet,
    source: str,
    sparql: str,
    *,
    theta: TypeState | None = None,
    settings: ExecuteSettings | None = None,
    rematch: bool = True,
) -> ExecuteOutcome:
    """The execute tool on a named source: guard, pre-execution type check with its toolbox's schema, then run.

    The type check reads the schema index of the source's one toolbox (the one schema rule), the
    index the run's re-run and answer checks of the attempt use
    (:func:`saga_kgqa.graph.source_tools.attempt_tools`), never the survey's.

    An empty answer to a query with pasted ``VALUES`` keys is tried again with the keys in the
    form this source stores them (:mod:`saga_kgqa.sources.pasted_keys`) unless ``rematch`` is off.

    Raises:
        UnknownName: No source has that name (a bad query is an outcome, never raised).
        ConfigurationError: The source was opened outside the composition root (it has no toolbox).
        BackendError: The graph failed while the toolbox's schema index was built.
    """
    opened = sources.get(source)
    schema = opened.toolbox().schema
    outcome = execute(sparql, graph=opened.graph, schema=schema, theta=theta, settings=settings)
    if outcome.status == "empty" and rematch:
        # Keys pasted in another source's form: bound again in the form this source stores them (42.3).
        again = rematch_pasted(
            sparql,
            outcome,
            graph=opened.graph,
            schema=schema,
            theta=theta,
            settings=settings or ExecuteSettings(),
            prefixes=opened.prefixes,
        )
        outcome = again or outcome
    if outcome.status in ("blocked", "empty"):
        # A property of another catalog source is named as living there (docs/faults.md N4).
        hints = elsewhere(sources, source, sparql)
        if hints:
            return outcome.model_copy(
                update={"text": "\n".join([outcome.text, *hints]), "notes": (*outcome.notes, *hints)}
            )
    return outcome

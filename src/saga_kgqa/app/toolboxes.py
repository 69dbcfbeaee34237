"""The one toolbox over a graph, for the agent and the CLI's tools alike: dialect, schema index, prefixes, search.

The schema index is :func:`~saga_kgqa.app.open.open_schema`'s (the one rule: a saved file, else
the dialect's index from its offline sources, else one built from the graph with induction under
the dialect's vocabulary). ``saga search``, ``lookup`` and ``examples`` take the toolbox's
:meth:`~saga_kgqa.tools.toolbox.SagaToolbox.default_view`; a run takes its own view. Nothing here
imports LangGraph or a chat model, so those commands start fast (issue 27).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from saga_kgqa.app.dialects import (
    open_entity_search,
    tool_dialect,
)
from saga_kgqa.app.open import open_schema
from saga_kgqa.config.open_options import OpenOptions
from saga_kgqa.config.settings import example_graph_path
from saga_kgqa.kg.cache.replay_cache import CacheMode
from saga_kgqa.kg.embedded.declared_prefixes import read_declared_prefixes
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.tools.toolbox import SagaToolbox

__all__ = ["open_toolbox", "toolbox_over"]


def open_toolbox(
    data: list[Path] | None,
    endpoint: str | None,
    profile: str | None,
    options: OpenOptions | None = None,
    *,
    cache_dir: Path | None = None,
    cache_mode: CacheMode = CacheMode.OFF,
    default_graphs: tuple[str, ...] = (),
    named_graphs: tuple[str, ...] = (),
) -> SagaToolbox:
    """Open a toolbox over RDF files, a store directory or an endpoint (the example graph when none is given).

    The tools speak ``options.dialect`` over ``options.schema_file``, else the dialect's index
    from ``options.data_dir``'s offline sources, else an index built from the graph with
    induction under the dialect's vocabulary. The graph sits behind the record/replay cache when
    ``cache_mode`` is on. ``default_graphs`` and ``named_graphs`` (an endpoint's, from the
    operator's catalog) are sent with every query as protocol parameters.

    Raises:
        ConfigurationError: The graph, schema or search settings are unusable.
        BackendError: The graph failed while the schema index was built.
    """
    options = options or OpenOptions()
    tool_dialect_data = tool_dialect(options.dialect)
    search = open_entity_search(options.entity_search)
    paths = [] if endpoint else list(data or []) or [example_graph_path()]
    backend = open_backend(
        data=paths or None,
        endpoint=endpoint,
        profile=profile,
        cache_dir=cache_dir,
        cache_mode=cache_mode,
        default_graphs=default_graphs,
        named_graphs=named_graphs,
    )
    graph = KnowledgeGraph(backend)
    # The data files' own prefixes make the ids the model sees short and familiar.
    return SagaToolbox(
        graph,
        open_schema(graph, options),
        prefixes=read_declared_prefixes(paths),
        dialect=tool_dialect_data,
        entity_search=search,
    )


def toolbox_over(
    graph: KnowledgeGraph,
    options: OpenOptions,
    *,
    data: list[Path] | None,
    entity_search_url: str | None = None,
    note: Callable[[str], None] | None = None,
    prefixes: Mapping[str, str] | None = None,
) -> SagaToolbox:
    """The tools in ``options.dialect`` over an opened graph: the given schema index, the dialect's, or one built now.

    ``entity_search_url`` is the MediaWiki API ``wikidata-api`` search asks (Wikidata's by default).
    ``prefixes`` are the extra prefixes of the compact ids shown; by default the ones the data
    files declare (the example graph's when no file is given). ``note`` is told when an index is
    built on the fly.

    Raises:
        ConfigurationError: The schema or search settings are unusable.
        BackendError: The graph failed while the schema index was built.
    """
    tools_dialect = tool_dialect(options.dialect)
    search = open_entity_search(options.entity_search, url=entity_search_url)
    schema = open_schema(graph, options, note=note)
    if prefixes is None:
        prefixes = read_declared_prefixes(data or [example_graph_path()])
    return SagaToolbox(graph, schema, prefixes=prefixes, dialect=tools_dialect, entity_search=search)

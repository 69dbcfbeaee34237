"""The default toolbox: the graph a context names (``source``, ``data`` / ``endpoint``), or the example graph.

Opening a store and building its schema index takes a moment, so toolboxes are cached
per source, dialect, schema file and search for the life of the process (a server
answers many runs from one).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from saga_kgqa.context import Dialect as DialectName
from saga_kgqa.context import SagaContext
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.graph.dialect_tools import (
    open_entity_search,
    saved_or_dialect_schema,
    schema_vocabulary,
    tool_dialect,
)
from saga_kgqa.graph.toolbox import SagaToolbox
from saga_kgqa.kg.cache.replay_cache import CacheMode
from saga_kgqa.kg.embedded.declared_prefixes import read_declared_prefixes
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.schema import build_schema_index
from saga_kgqa.settings import example_graph_path
from saga_kgqa.sources.catalog import CATALOG_ENV, DEFAULT_CATALOG_PATH, Catalog, SourceRecord
from saga_kgqa.sources.session import SourceSet

_CacheKey = tuple[str | None, str | None, str | None, str, str | None, str]
_CACHE: dict[_CacheKey, SagaToolbox] = {}
_SOURCE_CACHE: dict[SourceRecord, SagaToolbox] = {}
_SOURCE_SETS: dict[str, SourceSet] = {}
_LOCK = threading.Lock()


def sources_from_catalog_file(_context: SagaContext) -> SourceSet | None:
    """The operator's named sources when a catalog file is configured (``$SAGA_CATALOG`` or the default file).

    Without a file there are no named sources for the agent: the catalog built from the
    environment is the run's one graph (plus the example), which the plain tools already
    serve. Each catalog's sources are opened once for the life of the process.

    Raises:
        ConfigurationError: The catalog file is unusable.
    """
    if not os.environ.get(CATALOG_ENV, "").strip() and not DEFAULT_CATALOG_PATH.expanduser().is_file():
        return None
    catalog = Catalog.from_env()
    key = catalog.model_dump_json()
    with _LOCK:
        found = _SOURCE_SETS.get(key)
        if found is None:
            found = SourceSet(catalog)
            _SOURCE_SETS[key] = found
        return found


def toolbox_from_context(context: SagaContext) -> SagaToolbox:
    """The toolbox for ``context.source``, else ``context.data`` or ``context.endpoint`` (else the example graph).

    A named source comes from the operator's catalog (:meth:`Catalog.from_env`). Otherwise
    the tools speak ``context.dialect`` and read ``context.schema_index`` when set, else an
    index built from the graph with induction under the dialect's vocabulary.

    Raises:
        ConfigurationError: The source name, data, endpoint, schema or search settings are unusable.
        BackendError: The graph failed while the schema index was built.
    """
    if context.source:
        if context.data or context.endpoint:
            raise ConfigurationError("name a source or give data/an endpoint, not both")
        return toolbox_for_source(Catalog.from_env().source(context.source))
    key = (
        context.data,
        context.endpoint,
        context.profile,
        context.dialect,
        context.schema_index,
        context.entity_search,
    )
    with _LOCK:
        found = _CACHE.get(key)
        if found is None:
            found = _open(context)
            _CACHE[key] = found
        return found


def toolbox_for_source(source: SourceRecord) -> SagaToolbox:
    """The toolbox over one catalog source, opened once per record for the life of the process.

    Raises:
        ConfigurationError: The source's settings are unusable.
        BackendError: The graph failed while the schema index was built.
    """
    with _LOCK:
        found = _SOURCE_CACHE.get(source)
        if found is None:
            found = open_toolbox(
                [source.store] if source.store is not None else list(source.data),
                source.endpoint,
                source.profile,
                dialect=source.dialect,
                schema_file=source.schema_index,
                entity_search=source.entity_search,
                default_graphs=source.default_graphs,
                named_graphs=source.named_graphs,
            )
            _SOURCE_CACHE[source] = found
        return found


def _open(context: SagaContext) -> SagaToolbox:
    paths = [Path(p.strip()) for p in (context.data or "").split(",") if p.strip()]
    return open_toolbox(
        paths,
        context.endpoint,
        context.profile,
        dialect=context.dialect,
        schema_file=Path(context.schema_index) if context.schema_index else None,
        entity_search=context.entity_search,
    )


def open_toolbox(
    data: list[Path] | None,
    endpoint: str | None,
    profile: str | None,
    *,
    dialect: DialectName = "generic",
    schema_file: Path | None = None,
    data_dir: Path | None = None,
    entity_search: str = "off",
    cache_dir: Path | None = None,
    cache_mode: CacheMode = CacheMode.OFF,
    default_graphs: tuple[str, ...] = (),
    named_graphs: tuple[str, ...] = (),
) -> SagaToolbox:
    """Open a toolbox over RDF files, a store directory or an endpoint (the example graph when none is given).

    The tools speak ``dialect`` over ``schema_file``, else the dialect's index from
    ``data_dir``'s offline sources, else an index built from the graph with induction under
    the dialect's vocabulary. The graph sits behind the record/replay cache when
    ``cache_mode`` is on. ``default_graphs`` and ``named_graphs`` (an endpoint's, from the
    operator's catalog) are sent with every query as protocol parameters.

    Raises:
        ConfigurationError: The graph, schema or search settings are unusable.
        BackendError: The graph failed while the schema index was built.
    """
    tool_dialect_data = tool_dialect(dialect)
    search = open_entity_search(entity_search)
    schema = saved_or_dialect_schema(tool_dialect_data, schema_file=schema_file, data_dir=data_dir)
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
    if schema is None:
        schema = build_schema_index(backend, induce=True, vocabulary=schema_vocabulary(tool_dialect_data))
    # The data files' own prefixes make the ids the model sees short and familiar.
    return SagaToolbox(
        KnowledgeGraph(backend),
        schema,
        prefixes=read_declared_prefixes(paths),
        dialect=tool_dialect_data,
        entity_search=search,
    )

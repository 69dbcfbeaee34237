"""Open a graph from files, a store directory or an endpoint, and its schema index from a file or the graph.

Kept light: the store, guard and schema modules are imported inside the functions that use
them, so a CLI command's ``--help`` stays as cheap as typer (see :mod:`saga_kgqa.cli`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from saga_kgqa.config import settings
from saga_kgqa.config.open_options import OpenOptions
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.cache.replay_cache import CacheMode

if TYPE_CHECKING:
    from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
    from saga_kgqa.schema import SchemaIndex, SchemaVocabulary

logger = logging.getLogger(__name__)

#: What a command is told before an index is built on the fly (the CLI prints it on stderr).
BUILDING_NOTE = "note: building the schema index on the fly (save one with `saga index build`)"
REUSED_NOTE = "note: using the schema index built on the fly for this content before"


def open_graph(
    data: list[Path] | None,
    endpoint: str | None,
    profile: str | None,
    cache_dir: Path | None = None,
    cache_mode: CacheMode = CacheMode.OFF,
) -> KnowledgeGraph:
    """Open the graph the CLI options name: files, a store directory, an endpoint or the example graph.

    Raises:
        ConfigurationError: The options contradict each other or name nothing usable.
    """
    from saga_kgqa.kg.embedded.store_cache import open_cache
    from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
    from saga_kgqa.kg.opening import open_backend

    if data and endpoint:
        raise ConfigurationError("give either --data or --endpoint, not both")
    if not data and not endpoint:
        data = [settings.example_graph_path()]
    store_dir: Path | None = None
    files: list[Path] | None = None
    if data:
        if len(data) == 1 and data[0].is_dir():
            store_dir = data[0]
        else:
            files = list(data)
    backend = open_backend(
        data=files,
        store_dir=store_dir,
        endpoint=endpoint,
        profile=profile,
        cache_dir=cache_dir,
        cache_mode=cache_mode,
        # A user runs saga sparql/lookup on the same file many times: load it once (SAGA_STORE_CACHE_DIR).
        store_cache=open_cache() if files else None,
    )
    return KnowledgeGraph(backend)


def vocabulary_for(graph: KnowledgeGraph) -> SchemaVocabulary:
    """The schema vocabulary of a graph: Wikidata's P31/P279 under the wikidata profile, else RDFS."""
    from saga_kgqa.schema import SchemaVocabulary

    return SchemaVocabulary.wikidata() if graph.profile.name == "wikidata" else SchemaVocabulary()


def build_index(
    graph: KnowledgeGraph,
    *,
    induce: bool = True,
    stratify: bool = True,
    sample_size: int = 200,
    vocabulary: SchemaVocabulary | None = None,
) -> SchemaIndex:
    """Build the schema index of a graph through its facade (template queries only).

    ``vocabulary`` names the type and subclass predicates (default: :func:`vocabulary_for`).

    Raises:
        BackendError: The graph failed on a schema query.
    """
    from saga_kgqa.schema import build_schema_index

    # The graph is a backend too: the builder's template queries pass its guard.
    return build_schema_index(
        graph,
        induce=induce,
        stratify=stratify,
        sample_size=sample_size,
        vocabulary=vocabulary or vocabulary_for(graph),
    )


def load_or_build_schema(
    graph: KnowledgeGraph,
    schema_file: Path | None,
    *,
    vocabulary: SchemaVocabulary | None = None,
    note: Callable[[str], None] | None = None,
) -> SchemaIndex:
    """Load ``schema_file`` when given, else the index built for this content before, else build it (telling ``note``).

    ``vocabulary`` is the one to build under (default: :func:`vocabulary_for` the graph).

    Raises:
        ConfigurationError: The file is missing, unreadable or of another format version.
        BackendError: Building failed.
    """
    from saga_kgqa.schema import SchemaIndex
    from saga_kgqa.schema.content_cache import cached_schema, keep_schema

    if schema_file is not None:
        return SchemaIndex.load(schema_file)
    chosen = vocabulary or vocabulary_for(graph)
    tell = note or logger.info
    # Built once per store content and reused by every later command (issue 27).
    kept = cached_schema(graph.endpoint_id, chosen)
    if kept is not None:
        tell(REUSED_NOTE)
        return kept
    tell(BUILDING_NOTE)
    index = build_index(graph, vocabulary=chosen)
    keep_schema(graph.endpoint_id, chosen, index)
    return index


def open_schema(
    graph: KnowledgeGraph,
    options: OpenOptions,
    *,
    note: Callable[[str], None] | None = None,
) -> SchemaIndex:
    """The one schema rule every toolbox follows (``saga ask``, ``lookup``, the servers, the agent's sources).

    In order: ``options.schema_file``; else, for a dialect other than ``generic``, the dialect's index
    from its offline sources under the data directory (``options.data_dir``, else ``$SAGA_DATA_DIR``,
    else ``../shared/data``: resolved here once, so every command with the same options reads the same
    index); else an index induced from the graph under the dialect's vocabulary, cached per content.
    When no data directory was named and the default one is absent, the index is induced (told to
    ``note``); a named one that lacks the dialect's sources is an error.

    Raises:
        ConfigurationError: The file is unreadable, or the data directory lacks the dialect's sources.
        BackendError: The graph failed while the index was built.
    """
    from saga_kgqa.dialects import get_dialect

    if options.schema_file is not None:
        return load_or_build_schema(graph, options.schema_file, note=note)
    dialect = None if options.dialect == "generic" else get_dialect(options.dialect)
    if dialect is not None:
        data_dir = settings.data_dir(options.data_dir)
        if options.data_dir is not None or data_dir.is_dir():
            return dialect_schema(dialect.name, data_dir=data_dir)
        (note or logger.info)(f"note: no data directory at {data_dir}: the {dialect.name} schema index is induced")
    return load_or_build_schema(graph, None, vocabulary=dialect.vocabulary if dialect else None, note=note)


def dialect_schema(dialect: str, *, data_dir: Path | None, graph: KnowledgeGraph | None = None) -> SchemaIndex:
    """A dialect's schema index from its offline sources under ``data_dir``, and (Wikidata) ``graph``'s constraints.

    Raises:
        ConfigurationError: Unknown dialect, or a source under ``data_dir`` is missing.
        BackendError: The graph failed on a constraint query.
    """
    from saga_kgqa.schema.dialects import build_dialect_index

    return build_dialect_index(dialect, data_dir=data_dir, backend=graph)

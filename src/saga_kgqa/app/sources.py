"""The operator's named sources, opened for a face: a catalog record's toolbox and the set of opened sources.

A face names a source; this module opens it. (Today the toolbox of a record and the sources of
the source tools are opened separately; :func:`toolbox_for_source` caches one toolbox per record
for the life of the process.)
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from saga_kgqa.app.toolboxes import open_toolbox
from saga_kgqa.graph.toolbox import SagaToolbox
from saga_kgqa.sources.catalog import Catalog, SourceRecord
from saga_kgqa.sources.session import OpenSource, SourceSet

_SOURCE_CACHE: dict[SourceRecord, SagaToolbox] = {}
_LOCK = threading.Lock()


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


def source_toolbox(opened: OpenSource) -> SagaToolbox:
    """The agent's toolbox over an opened source: its declared or surveyed index and the graph's prefixes."""
    kit = opened.toolkit()
    return SagaToolbox(opened.graph, opened.schema(), prefixes=kit.prefixes)


def source_set(catalog: Catalog, *, survey_dir: Path | None = None) -> SourceSet:
    """The catalog's sources for the source tools (each opened on first use)."""
    return SourceSet(catalog, survey_dir=survey_dir)


@contextmanager
def opened_sources(catalog_file: Path | None, survey_dir: Path | None = None) -> Iterator[SourceSet]:
    """The sources of ``catalog_file`` (else ``$SAGA_CATALOG``, else the environment's), closed on exit.

    Raises:
        ConfigurationError: The catalog cannot be read.
    """
    catalog = Catalog.load(catalog_file) if catalog_file is not None else Catalog.from_env()
    with source_set(catalog, survey_dir=survey_dir) as sources:
        yield sources


def forget_opened() -> None:
    """Drop the process's opened toolboxes (for tests that point one process at several catalogs)."""
    with _LOCK:
        _SOURCE_CACHE.clear()

"""The operator's named sources, one stack per source per process: every face opens a source here.

:func:`open_source` opens a catalog record once for the life of the process (its graph, with
the record's graph scopes; its survey and schema index; its name index), keyed by the record
and the survey cache it uses. :func:`source_toolbox` is the one toolbox over an opened source,
kept on it, in the record's dialect, with its entity search, over the schema index of the one rule
(:func:`~saga_kgqa.app.open.open_schema`; the source tools keep the survey for summaries and resolution).
``saga ask --source``, ``saga mcp`` (its agent tools and its source tools alike),
``saga serve web``, TEXT2SPARQL and ``langgraph dev`` all reach a source through these two, so
``lookup`` and ``resolve_entity`` on one source read one graph, with one set of scopes.
:func:`source_set` is the catalog's :class:`~saga_kgqa.sources.session.SourceSet` over them: the one set
class, given the process's opener (its sources are borrowed, and released with the set or kept).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.kg.embedded.declared_prefixes import read_declared_prefixes
from saga_kgqa.schema.survey_cache import default_limits, default_survey_dir
from saga_kgqa.sources.session import OpenSource, SourceSet, open_record
from saga_kgqa.tools.context import ToolCaps

if TYPE_CHECKING:
    # The agent's toolbox pulls in LangGraph: imported where a toolbox is built, so `saga source
    # resolve`/`summary` and the source tools' reads do not pay for it (issue 27).
    from saga_kgqa.tools.toolbox import SagaToolbox

_Key = tuple[SourceRecord, Path]
_OPENED: dict[_Key, OpenSource] = {}
_LOCK = threading.Lock()


def open_source(record: SourceRecord, *, survey_dir: Path | None = None) -> OpenSource:
    """The source of ``record``, opened now if this process has not opened it yet.

    Args:
        record: The operator's catalog record.
        survey_dir: Where its survey and name index are cached (``$SAGA_SURVEY_DIR`` by default).

    Raises:
        ConfigurationError: The record's files, store or endpoint cannot be opened.
    """
    key = (record, survey_dir or default_survey_dir())
    with _LOCK:
        opened = _OPENED.get(key)
        if opened is None:
            opened = open_record(
                record, survey_dir=key[1], limits=default_limits(), caps=ToolCaps(), toolboxes=open_source_toolbox
            )
            _OPENED[key] = opened
        return opened


def source_toolbox(opened: OpenSource) -> SagaToolbox:
    """The one toolbox over an opened source (:func:`open_source_toolbox`'s), opened once and kept on the source.

    Raises:
        ConfigurationError: The record's schema index or entity search is unusable.
        BackendError: The graph failed while the schema index was built.
    """
    return opened.toolbox(open_source_toolbox)


def open_source_toolbox(opened: OpenSource) -> SagaToolbox:
    """Open the toolbox over a source: its dialect, its entity search, its graph and scopes.

    The schema index follows the one rule (:func:`~saga_kgqa.app.open.open_schema`) with the record's
    options: its declared index, else the dialect's offline index from the data directory, else one
    induced from the graph under the dialect's vocabulary (cached per content), which reads the
    graph's own RDFS/OWL domains and ranges first, as the bounded survey (the source tools' index)
    does not. So a source and ``saga ask --data`` over the same graph with the same dialect read one
    index. Call :func:`source_toolbox` (or :meth:`OpenSource.toolbox`) instead: they open it once per
    source.

    Raises:
        ConfigurationError: The record's schema index or entity search is unusable.
        BackendError: The graph failed while the schema index was built.
    """
    from saga_kgqa.app.dialects import open_entity_search, tool_dialect
    from saga_kgqa.app.open import open_schema
    from saga_kgqa.config.open_options import OpenOptions
    from saga_kgqa.tools.toolbox import SagaToolbox

    record = opened.record
    dialect = tool_dialect(record.dialect)
    search = open_entity_search(record.entity_search)
    schema = open_schema(
        opened.graph,
        OpenOptions(dialect=record.dialect, schema_file=record.schema_index, entity_search=record.entity_search),
    )
    return SagaToolbox(
        opened.graph,
        schema,
        # The data files' own prefixes make the ids the model sees short and familiar.
        prefixes=read_declared_prefixes([record.store] if record.store is not None else list(record.data)),
        dialect=dialect,
        entity_search=search,
    )


def toolbox_for_source(record: SourceRecord) -> SagaToolbox:
    """The toolbox over one catalog source (:func:`open_source`, then :func:`source_toolbox`).

    Raises:
        ConfigurationError: The source's settings are unusable.
        BackendError: The graph failed while it was surveyed.
    """
    return source_toolbox(open_source(record))


class _ProcessSources:
    """The composition root's opener: every set gets the process's opened source (:func:`open_source`)."""

    def __init__(self, *, release: bool) -> None:
        self._release = release

    def open(self, record: SourceRecord, sources: SourceSet) -> OpenSource:
        """The source of ``record``, the same object every face of this process gets."""
        return open_source(record, survey_dir=sources.survey_dir)

    def held(self, record: SourceRecord, sources: SourceSet) -> OpenSource | None:
        """The source of ``record`` if this process opened it already (by any face); nothing is opened."""
        with _LOCK:
            return _OPENED.get((record, sources.survey_dir))

    def release(self, opened: OpenSource) -> None:
        """Close ``opened`` when the set releases its sources; otherwise leave it to the process."""
        if self._release:
            release(opened)


def release(opened: OpenSource) -> None:
    """Close an opened source and forget it (the next :func:`open_source` of its record opens it again)."""
    with _LOCK:
        for key in [key for key, held in _OPENED.items() if held is opened]:
            del _OPENED[key]
    opened.graph.close()


def source_set(catalog: Catalog, *, survey_dir: Path | None = None, release: bool = False) -> SourceSet:
    """The catalog's sources as every face sees them: borrowed from the process's opened sources.

    Each is opened on first use once per process (:func:`open_source`), whichever set or face asks;
    :meth:`~saga_kgqa.sources.session.SourceSet.opened` answers from the process's sources, so a
    prompt that lists every source shows the surveys the process holds.

    Args:
        catalog: The operator's catalog.
        survey_dir: Where surveys and name indexes are cached (``$SAGA_SURVEY_DIR`` by default).
        release: Close the sources the set got when it is closed (a command that exits after one
            call); a server's set keeps them for the life of the process.
    """
    return SourceSet(catalog, survey_dir=survey_dir, opener=_ProcessSources(release=release))


@contextmanager
def opened_sources(catalog_file: Path | None, survey_dir: Path | None = None) -> Iterator[SourceSet]:
    """The sources of ``catalog_file`` (else ``$SAGA_CATALOG``, else the environment's), closed on exit.

    Raises:
        ConfigurationError: The catalog cannot be read.
    """
    catalog = Catalog.load(catalog_file) if catalog_file is not None else Catalog.from_env()
    with source_set(catalog, survey_dir=survey_dir, release=True) as sources:
        yield sources


def forget_opened() -> None:
    """Close and forget every opened source (for tests that point one process at several catalogs)."""
    with _LOCK:
        held = list(_OPENED.values())
        _OPENED.clear()
    for each in held:
        each.graph.close()

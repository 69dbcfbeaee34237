"""The operator's sources, opened on first use: graph, survey, schema index, toolbox and name index.

The grounding functions (:mod:`~saga_kgqa.sources.summary`, ``resolution``, ``expansion``,
``bridging``, ``catalog_search``) take a :class:`SourceSet` and a source *name*: a caller
never passes a URL or a path, only a name from the operator's catalog. A source with a
declared schema index (``schema_index`` in its record) uses it for the type filter; one
without gets the surveyed index (:mod:`~saga_kgqa.schema.survey`). The tools over a source
(search, lookup, examples, a run's re-run of an answer) are its one toolbox, which the
composition root opens (:func:`saga_kgqa.app.sources.source_toolbox`) and the source keeps.

There is one set class; how it opens and closes its sources is its :class:`SourceOpener`: by default
(:class:`OwnSources`) each source is opened for the set alone and closed with it; the composition
root's (:func:`saga_kgqa.app.sources.source_set`) borrows the process's sources, opened once per
process for every face, and releases them with the set or keeps them for the process.
"""

from __future__ import annotations

import hashlib
import logging
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from threading import Lock
from typing import TYPE_CHECKING, Protocol

from saga_kgqa.closing import Closing
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.private_files import UnsafeCacheDir, private_root
from saga_kgqa.schema import SchemaIndex, SchemaVocabulary
from saga_kgqa.schema.survey_cache import cached_survey, default_limits, default_survey_dir
from saga_kgqa.schema.survey_model import SourceSurvey, SurveyLimits
from saga_kgqa.tools.context import ToolCaps
from saga_kgqa.tools.graph_reads import Reads
from saga_kgqa.tools.search.fulltext import FullTextIndex
from saga_kgqa.tools.search.names_cache import STORE_FULLTEXT_DIR

if TYPE_CHECKING:
    from saga_kgqa.tools.toolbox import SagaToolbox

_LOG = logging.getLogger(__name__)

#: Opens the toolbox over a source (the composition root's :func:`saga_kgqa.app.sources.open_source_toolbox`).
ToolboxOpener = Callable[["OpenSource"], "SagaToolbox"]


@dataclass
class OpenSource:
    """One opened source and what was derived from it (each part built on first use).

    Attributes:
        record: The operator's record.
        graph: The source behind its guard.
        survey_dir: Where surveys and name indexes of files are cached.
        limits: The survey's bounds.
        caps: The caps of the source's bounded reads (deadline, names read per predicate).
        native_text: Whether the engine's own full-text index covers the names (Virtuoso's;
            ``None`` until probed, see :mod:`saga_kgqa.sources.virtuoso_text`).
        opens_toolbox: How the composition root opens the source's toolbox (``None``: a source
            opened outside it has no tools until :meth:`toolbox` is given an opener).
    """

    record: SourceRecord
    graph: KnowledgeGraph
    survey_dir: Path
    limits: SurveyLimits
    caps: ToolCaps
    _survey: SourceSurvey | None = None
    _schema: SchemaIndex | None = None
    _names: FullTextIndex | None = None
    native_text: bool | None = None
    opens_toolbox: ToolboxOpener | None = None
    _toolbox: SagaToolbox | None = None
    _lock: Lock = field(default_factory=Lock)
    _toolbox_lock: Lock = field(default_factory=Lock)

    @property
    def name(self) -> str:
        """The source's catalog name."""
        return self.record.name

    @property
    def declared(self) -> bool:
        """Whether the operator gave a curated schema index for this source."""
        return self.record.schema_index is not None

    def survey(self, *, refresh: bool = False) -> SourceSurvey:
        """The bounded survey (cached in memory and on disk; ``refresh`` rebuilds it)."""
        with self._lock:
            if self._survey is None or refresh:
                self._survey = cached_survey(
                    self.graph,
                    source=self.name,
                    graphs=self.record.default_graphs,
                    limits=self.limits,
                    cache_dir=self.survey_dir,
                    refresh=refresh,
                )
                if not self.declared:
                    self._schema = None
            return self._survey

    def surveyed(self) -> SourceSurvey | None:
        """The survey if this process already holds it, else ``None``; never sends a query."""
        with self._lock:
            return self._survey

    def schema(self) -> SchemaIndex:
        """The declared schema index when the record names one, else the surveyed index."""
        if self._schema is None:
            if self.record.schema_index is not None:
                self._schema = SchemaIndex.load(self.record.schema_index)
            else:
                self._schema = self.survey().index
        return self._schema

    def vocabulary(self) -> SchemaVocabulary:
        """Type and subclass predicates of the schema index in force."""
        schema = self.schema()
        return SchemaVocabulary(type_predicates=schema.type_predicates, subclass_predicates=schema.subclass_predicates)

    def toolbox(self, opener: ToolboxOpener | None = None) -> SagaToolbox:
        """The one toolbox over this source: opened on first use, then kept for the life of the source.

        Args:
            opener: Opens it when this source was opened without one (the composition root's).

        Raises:
            ConfigurationError: No opener: the source was opened outside the composition root.
            BackendError: The graph failed while the toolbox's schema index was built.
        """
        with self._toolbox_lock:
            if self._toolbox is None:
                opens = self.opens_toolbox or opener
                if opens is None:
                    raise ConfigurationError(f"source {self.name!r} has no toolbox: open it through saga_kgqa.app")
                self._toolbox = opens(self)
            return self._toolbox

    def reads(self) -> Reads:
        """A fresh bounded query helper over the source (its notes belong to one call)."""
        return Reads(self.graph, deadline_s=self.caps.deadline_s)

    @property
    def prefixes(self) -> dict[str, str]:
        """The prefixes of the ids the source tools show: the graph's own, which its guard parses.

        Not the toolbox's: those add the data files' declarations, which a query sent to the
        source through ``execute_on`` or ``join`` could not use without declaring them.
        """
        return dict(self.graph.profile.prefixes)

    def fulltext_path(self) -> Path:
        """Where the name index lives: inside a ``saga load`` store, else in the cache keyed by content.

        The cache directory must be private (:func:`~saga_kgqa.private_files.private_root`); when
        it is not (a symlink, another owner, writable by others) the index goes to a private
        scratch directory of this process instead, and nothing is read from or written to it.
        """
        if self.record.store is not None:
            return self.record.store / STORE_FULLTEXT_DIR
        digest = hashlib.sha256(self.graph.endpoint_id.encode()).hexdigest()[:24]
        try:
            private_root(self.survey_dir)
            return private_root(self.survey_dir / "fulltext") / digest
        except UnsafeCacheDir as exc:
            _LOG.warning("%s", exc.message)
            return Path(tempfile.mkdtemp(prefix="saga-names-")) / digest

    def set_names(self, index: FullTextIndex) -> None:
        """Keep the opened name index (see :func:`saga_kgqa.sources.resolution.name_index`)."""
        self._names = index

    @property
    def names(self) -> FullTextIndex | None:
        """The name index, once opened."""
        return self._names


class SourceOpener(Protocol):
    """How a :class:`SourceSet` gets its sources: opened for the set alone, or shared by the process.

    :class:`OwnSources` (the default) opens each source for one set and closes it with the set; the
    composition root's opener (:func:`saga_kgqa.app.sources.source_set`) hands every face of the
    process the same opened source, and closes it with a set only when that set releases its sources.
    """

    def open(self, record: SourceRecord, sources: SourceSet) -> OpenSource:
        """The source of ``record`` for ``sources`` (its cache, limits, caps), opened now if it is not yet."""

    def held(self, record: SourceRecord, sources: SourceSet) -> OpenSource | None:
        """The source of ``record`` if it is open already, else ``None``; never opens it."""

    def release(self, opened: OpenSource) -> None:
        """The set that got ``opened`` closes: close it, or leave it open for the rest of the process."""


class OwnSources:
    """The default opener: each source opened on first use for one set, and closed with it."""

    def __init__(self) -> None:
        """Nothing is opened yet."""
        self._open: dict[str, OpenSource] = {}
        self._lock = Lock()

    def open(self, record: SourceRecord, sources: SourceSet) -> OpenSource:
        """The source of ``record``, opened now (with the set's cache, limits, caps and toolbox opener) if not yet.

        Raises:
            ConfigurationError: The record's files, store or endpoint cannot be opened.
        """
        with self._lock:
            found = self._open.get(record.name)
            if found is None:
                found = open_record(
                    record,
                    survey_dir=sources.survey_dir,
                    limits=sources.limits,
                    caps=sources.caps,
                    toolboxes=sources.toolboxes,
                )
                self._open[record.name] = found
            return found

    def held(self, record: SourceRecord, sources: SourceSet) -> OpenSource | None:
        """The source of ``record`` if this opener opened it, else ``None``."""
        with self._lock:
            return self._open.get(record.name)

    def release(self, opened: OpenSource) -> None:
        """Close ``opened`` and forget it (the next :meth:`open` of its record opens it again)."""
        with self._lock:
            if self._open.get(opened.name) is opened:
                del self._open[opened.name]
        opened.graph.close()


class SourceSet(Closing):
    """The catalog's sources, each got from the set's opener on first use and handed back when the set closes."""

    def __init__(
        self,
        catalog: Catalog,
        *,
        survey_dir: Path | None = None,
        limits: SurveyLimits | None = None,
        caps: ToolCaps | None = None,
        toolboxes: ToolboxOpener | None = None,
        opener: SourceOpener | None = None,
    ) -> None:
        """Hold the catalog; nothing is opened yet.

        Args:
            catalog: The operator's catalog.
            survey_dir: Where surveys and name indexes are cached (``$SAGA_SURVEY_DIR`` by default).
            limits: The survey's bounds (default: ``SurveyLimits()``, its overall budget from ``$SAGA_SURVEY_SECONDS``).
            caps: The caps of the sources' bounded reads.
            toolboxes: Opens a source's toolbox (:func:`saga_kgqa.app.sources.open_source_toolbox`).
            opener: How the sources are opened and closed (default: :class:`OwnSources`, for this set
                alone; the composition root's set shares the process's, see :func:`saga_kgqa.app.sources.source_set`).
        """
        self.catalog = catalog
        self.survey_dir = survey_dir or default_survey_dir()
        self.limits = limits or default_limits()
        self.caps = caps or ToolCaps()
        self.toolboxes = toolboxes
        self.opener: SourceOpener = opener or OwnSources()
        self._got: dict[str, OpenSource] = {}
        self._lock = Lock()

    @property
    def names(self) -> list[str]:
        """The configured source names, sorted."""
        return sorted(self.catalog.sources)

    def opened(self, name: str) -> OpenSource | None:
        """The source called ``name`` if the opener holds it open already, else ``None`` (nothing is opened).

        With the composition root's opener that is any face of the process: a prompt that lists every
        source shows the surveys the process holds.
        """
        record = self.catalog.sources.get(name)
        return None if record is None else self.opener.held(record, self)

    def get(self, name: str) -> OpenSource:
        """The source called ``name``, opened now if it is not yet.

        Raises:
            UnknownName: No source has that name (the message lists the configured ones).
            ConfigurationError: The record's files, store or endpoint cannot be opened.
        """
        record = self.catalog.source(name)
        found = self.opener.open(record, self)
        with self._lock:
            self._got[record.name] = found
        return found

    def close(self) -> None:
        """Hand every source this set got back to its opener (which closes it or keeps it for the process)."""
        with self._lock:
            got = list(self._got.values())
            self._got.clear()
        for opened in got:
            self.opener.release(opened)


def open_record(
    record: SourceRecord,
    *,
    survey_dir: Path,
    limits: SurveyLimits,
    caps: ToolCaps,
    toolboxes: ToolboxOpener | None,
) -> OpenSource:
    """Open a catalog record's graph (:func:`open_source_graph`) as a source, its survey and index built on first use.

    Raises:
        ConfigurationError: The files, store or endpoint cannot be opened.
    """
    return OpenSource(record, open_source_graph(record), survey_dir, limits, caps, opens_toolbox=toolboxes)


def open_source_graph(record: SourceRecord) -> KnowledgeGraph:
    """Open a catalog record's files, store or endpoint behind the guard, with its graph scopes.

    Raises:
        ConfigurationError: The files, store or endpoint cannot be opened.
    """
    backend = open_backend(
        data=list(record.data) or None,
        store_dir=record.store,
        endpoint=record.endpoint,
        profile=record.profile,
        default_graphs=record.default_graphs,
        named_graphs=record.named_graphs,
    )
    return KnowledgeGraph(backend)

"""The embedded graph store on pyoxigraph.

Files (Turtle, N-Triples, RDF/XML, OWL, ...) are bulk-loaded into a store directory
(:mod:`saga_kgqa.kg.embedded.loading`), which is then opened read-only as a second line of defence behind the guard
(docs/faults.md C3). Queries are routed by origin:

* ``template`` queries, built by saga-kgqa from escaped terms, anchored and LIMITed, run
  in-process with lazy iteration: this is the lookup tools' fast path, with no IPC cost.
* ``guard`` queries, written by a model or a user, run in a killable worker process
  (:mod:`saga_kgqa.kg.embedded.worker`), because pyoxigraph cannot cancel a query and
  only ending the process bounds its wall time (docs/faults.md C2), and it is capped
  in memory, result bytes and cell size (docs/faults.md H6-H8).

No query with a SERVICE clause reaches pyoxigraph, whatever its origin or the profile:
pyoxigraph would call the service over the network itself (docs/faults.md H4).
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import pyoxigraph as ox

from saga_kgqa.closing import Closing
from saga_kgqa.errors import ConfigurationError, EndpointUnavailable, QueryRejected, QuerySyntaxError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.profiles import EndpointProfile, get_profile
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.kg.embedded.dotted_names import escape_dotted_local_names
from saga_kgqa.kg.embedded.engine_errors import evaluation_error
from saga_kgqa.kg.embedded.loading import content_digest, load_files, read_content_key, sniff_rdf_format
from saga_kgqa.kg.embedded.oxigraph_terms import collect_result, has_named_graphs
from saga_kgqa.kg.embedded.stale_stores import STORE_PREFIX, sweep_stale_stores
from saga_kgqa.kg.embedded.worker import DEFAULT_MAX_CELL_CHARS, QueryWorker
from saga_kgqa.kg.embedded.xsd_casts import casts_for
from saga_kgqa.kg.guard.sparql_lexer import tokenize

if TYPE_CHECKING:
    from saga_kgqa.kg.embedded.store_cache import StoreCache

__all__ = ["EMBEDDED_PROFILES", "EmbeddedStore", "content_digest", "load_files", "sniff_rdf_format"]

#: Profiles that make sense on an embedded store: its own, and Wikidata's (a local Wikidata
#: extract keeps WDQS's prefixes). The others describe a remote server's behaviour.
EMBEDDED_PROFILES = frozenset({"embedded", "wikidata"})
_NO_SERVICE = (
    "the embedded store runs no SERVICE clause, whatever the profile allows (pyoxigraph would call the "
    "service over the network): remove it; for labels, match rdfs:label directly, e.g. "
    '?item rdfs:label ?itemLabel FILTER(LANG(?itemLabel) = "en")'
)


def check_embedded_profile(profile: EndpointProfile) -> None:
    """Refuse a profile that describes a remote server for an embedded store.

    Raises:
        ConfigurationError: The profile is not one of :data:`EMBEDDED_PROFILES`.
    """
    if profile.name not in EMBEDDED_PROFILES:
        known = ", ".join(sorted(EMBEDDED_PROFILES))
        raise ConfigurationError(
            f"profile {profile.name!r} describes a remote server; an embedded store takes the profile {known}"
        )


_SERVICE_WORD = re.compile("service", re.IGNORECASE)


def _uses_service(text: str) -> bool:
    # The substring test keeps the template fast path cheap (a few µs instead of ~140 µs of
    # tokenizing); only texts that contain the word at all are tokenized, so a SERVICE in a
    # string or comment is not mistaken for a clause. pyoxigraph reads no \u escapes in keywords.
    return _SERVICE_WORD.search(text) is not None and any(token.is_word("SERVICE") for token in tokenize(text))


def store_endpoint_id(store_dir: Path) -> str:
    """A store directory's identity: its content key when ``saga load`` recorded one, else its path.

    The content key is the one the store cache gives the same files, so the surveys, schemas
    and name indexes kept under it serve every copy of the same content, and an appended
    store (a new key) never gets the old one's.
    """
    key = read_content_key(store_dir)
    return f"embedded:files:{key[:32]}" if key is not None else f"embedded:{store_dir.resolve()}"


class EmbeddedStore(Closing):
    """A read-only pyoxigraph store implementing :class:`~saga_kgqa.kg.core.backend.KGBackend`.

    Template queries run in-process; guard queries (model or user text) run in a
    killable worker process that enforces the deadline. Use as a context manager or call
    :meth:`close`, which also stops the worker.
    """

    def __init__(
        self,
        store_dir: Path,
        *,
        profile: EndpointProfile | None = None,
        owns_dir: bool = False,
        endpoint_id: str | None = None,
        worker_startup_timeout_s: float = 30.0,
        worker_memory_mb: int | None = None,
        max_cell_chars: int = DEFAULT_MAX_CELL_CHARS,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        """Open an on-disk store read-only.

        Args:
            store_dir: Directory written by :func:`load_files` or ``saga load``.
            profile: Endpoint profile (``embedded`` by default).
            owns_dir: Delete the directory on :meth:`close` (temporary stores).
            endpoint_id: Stable identity of the store's content; by default its recorded content
                key (:func:`store_endpoint_id`), else its path.
            worker_startup_timeout_s: How long the query worker may take to start.
            worker_memory_mb: Address-space cap of the query worker in MiB; by default
                ``$SAGA_WORKER_MEMORY_MB`` or 2048; ``0`` for none.
            max_cell_chars: Characters kept of one value a guard query returns.
            on_close: Called once by :meth:`close` after the worker stopped (a cache entry's lease).

        Raises:
            ConfigurationError: The directory is not a store, or the profile describes a remote server.
        """
        check_embedded_profile(profile or get_profile("embedded"))
        if not store_dir.is_dir():
            raise ConfigurationError(f"store directory not found: {store_dir}")
        try:
            self._store: ox.Store | None = ox.Store.read_only(str(store_dir))
        except OSError as exc:
            raise ConfigurationError(f"cannot open store {store_dir}: {exc}") from exc
        self._union = has_named_graphs(self._store)
        self._dir = store_dir
        self._owns_dir = owns_dir
        self._on_close = on_close
        self._profile = profile or get_profile("embedded")
        self._prefixes = dict(self._profile.prefixes)
        self._endpoint_id = endpoint_id or store_endpoint_id(store_dir)
        self._worker = QueryWorker(
            store_dir,
            self._prefixes,
            startup_timeout_s=worker_startup_timeout_s,
            memory_mb=worker_memory_mb,
            max_cell_chars=max_cell_chars,
            cleanup_dir=store_dir if owns_dir else None,
        )

    @classmethod
    def from_files(cls, paths: Iterable[Path], *, profile: EndpointProfile | None = None) -> EmbeddedStore:
        """Load RDF files into a temporary store directory and open it read-only.

        The store's ``endpoint_id`` is derived from the files' content, so it is the same
        on every run over the same data. Stale temporary stores of dead hosts are swept first.

        Raises:
            ConfigurationError: A file is missing, of an unknown type or not valid RDF, or
                the profile describes a remote server.
        """
        files = list(paths)
        check_embedded_profile(profile or get_profile("embedded"))
        sweep_stale_stores()
        tmp = Path(tempfile.mkdtemp(prefix=f"{STORE_PREFIX}{os.getpid()}-"))
        try:
            load_files(tmp, files)
            endpoint_id = f"embedded:files:{content_digest(files)[:32]}"
            return cls(tmp, profile=profile, owns_dir=True, endpoint_id=endpoint_id)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    @classmethod
    def from_cache(
        cls, cache: StoreCache, paths: Iterable[Path], *, profile: EndpointProfile | None = None
    ) -> EmbeddedStore | None:
        """Open the cached read-only store of these files, building it on a miss.

        The ``endpoint_id`` is the one :meth:`from_files` gives the same files. The store holds a
        lease on its entry until :meth:`close` (or the process's end), so it is never evicted in use.

        Returns:
            The store, or ``None`` when the files cannot be cached (too large, unusable cache directory).

        Raises:
            ConfigurationError: A file is missing, of an unknown type or not valid RDF, or the
                profile describes a remote server.
        """
        check_embedded_profile(profile or get_profile("embedded"))
        entry = cache.acquire(list(paths))
        if entry is None:
            return None
        try:
            return cls(
                entry.store_dir,
                profile=profile,
                endpoint_id=f"embedded:files:{entry.content_digest[:32]}",
                on_close=entry.release,
            )
        except BaseException:
            entry.release()
            raise

    @property
    def endpoint_id(self) -> str:
        """Identify the store by its content (stores built from files) or its directory."""
        return self._endpoint_id

    @property
    def profile(self) -> EndpointProfile:
        """The endpoint profile in force."""
        return self._profile

    @property
    def store_dir(self) -> Path:
        """The on-disk store directory."""
        return self._dir

    @property
    def worker_starts(self) -> int:
        """How many query worker processes were started so far."""
        return self._worker.starts

    @property
    def worker_pid(self) -> int | None:
        """The process id of the query worker, or ``None`` when none is running."""
        return self._worker.pid

    def __len__(self) -> int:
        return len(self._open_store())

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        """Run a checked query, reading lazily up to the row cap.

        Bounded template queries run in-process and are not bounded by the deadline (they
        are anchored and LIMITed by construction); guard queries and unbounded templates
        (survey probes, ``bounded=False``) run in the worker process, which is killed when
        the deadline passes, one at a time and under its memory cap.

        Raises:
            QuerySyntaxError: pyoxigraph rejected the query (every update form lands here).
            QueryTimeout: A guard query ran past ``limits.deadline_s``.
            QueryRejected: The query has a SERVICE clause (never run here, whatever the profile).
            QueryMemoryExhausted: A guard query used up the worker's memory cap.
            QueryCrashedEngine: A guard query crashed the worker.
            EndpointUnavailable: The store is closed, failed, or its worker could not run.
            BackendError: The store could not evaluate the query for another reason.
        """
        if _uses_service(query.text):
            raise QueryRejected(_NO_SERVICE, reason="service")
        escaped = escape_dotted_local_names(query.text)
        if escaped != query.text:
            query = dataclasses.replace(query, text=escaped)
        limits = limits or ExecutionLimits()
        if query.origin == "template" and query.bounded:
            return self._execute_in_process(query, limits)
        return self._worker.run(query, limits)

    def prestart(self) -> None:
        """Start the query worker now without waiting for it, so it opens the store while the caller works.

        Called before a guard check: the worker's start (~0.1-0.2 s) overlaps the guard's. No
        query is sent; the first :meth:`execute` of a guard query waits for the worker to be ready.
        """
        self._worker.prestart()

    def _execute_in_process(self, query: CheckedQuery, limits: ExecutionLimits) -> QueryResult:
        store = self._open_store()
        started = time.perf_counter()
        try:
            # Named graphs record provenance (one graph per source); queries see their union.
            raw = store.query(
                query.text,
                prefixes=self._prefixes,
                use_default_graph_as_union=self._union,
                custom_functions=casts_for(query.text),
            )
            return collect_result(raw, query.form, limits.max_rows, started)
        except SyntaxError as exc:
            raise QuerySyntaxError(f"the store rejected the query: {exc}", server_text=str(exc)) from exc
        except OSError as exc:
            raise EndpointUnavailable(f"the embedded store failed while answering: {exc}") from exc
        except RuntimeError as exc:
            raise evaluation_error(f"RuntimeError: {exc}") from exc

    def _open_store(self) -> ox.Store:
        if self._store is None:
            raise EndpointUnavailable(f"the embedded store {self._dir} is closed")
        return self._store

    def close(self) -> None:
        """Stop the query worker, release the store and delete it when it was temporary."""
        self._worker.close()
        self._store = None
        if self._owns_dir:
            shutil.rmtree(self._dir, ignore_errors=True)
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close()

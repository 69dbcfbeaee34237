"""The embedded graph store on pyoxigraph.

Files (Turtle, N-Triples, RDF/XML, OWL, ...) are bulk-loaded into a store directory,
which is then opened read-only as a second line of defence behind the guard
(docs/faults.md C3). Queries are routed by origin:

* ``template`` queries, built by saga-kgqa from escaped terms, anchored and LIMITed, run
  in-process with lazy iteration: this is the lookup tools' fast path, with no IPC cost.
* ``guard`` queries, written by a model or a user, run in a killable worker process
  (:mod:`saga_kgqa.kg.embedded_worker`), because pyoxigraph cannot cancel a query and
  only ending the process bounds its wall time (docs/faults.md C2).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType

import pyoxigraph as ox

from saga_kgqa.errors import ConfigurationError, EndpointUnavailable, QuerySyntaxError
from saga_kgqa.kg.backend import ExecutionLimits
from saga_kgqa.kg.embedded_worker import QueryWorker
from saga_kgqa.kg.oxigraph_terms import collect_result, has_named_graphs, rdf_format_for
from saga_kgqa.kg.profiles import EndpointProfile, get_profile
from saga_kgqa.kg.query import CheckedQuery
from saga_kgqa.kg.result import QueryResult

# An RDF/XML document starts with a declaration, a comment/doctype, or a root element
# whose name is followed by whitespace (it must declare its namespaces), such as
# ``<rdf:RDF xmlns...``. A Turtle file may also start with ``<``, but with an IRI
# (``<http://...>``, ``<urn:x>``) that never contains whitespace.
_XML_START = re.compile(rb"<(\?xml|!|[A-Za-z_][\w.-]*(:[A-Za-z_][\w.-]*)?\s)")
_HASH_CHUNK_BYTES = 1 << 20


def sniff_rdf_format(path: Path) -> ox.RdfFormat:
    """Return the serialisation of an RDF file, looking inside ``.owl`` files (RDF/XML or Turtle).

    Raises:
        ValueError: The suffix is not a known RDF serialisation.
    """
    if path.suffix.lower() == ".owl":
        with path.open("rb") as handle:
            head = handle.read(512).removeprefix(b"\xef\xbb\xbf").lstrip()
        return ox.RdfFormat.RDF_XML if _XML_START.match(head) else ox.RdfFormat.TURTLE
    return rdf_format_for(path.suffix)


def content_digest(paths: Iterable[Path]) -> str:
    """Return a digest of the files' bytes, independent of their order and names.

    A store built from files in a fresh temporary directory needs an identity that is
    the same on every run, or recorded queries (record/replay cache) would never match.
    """
    digests = []
    for path in paths:
        file_hash = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(_HASH_CHUNK_BYTES):
                file_hash.update(chunk)
        digests.append(file_hash.hexdigest())
    return hashlib.sha256("\n".join(sorted(digests)).encode()).hexdigest()


def load_files(store_dir: Path, paths: Iterable[Path]) -> int:
    """Bulk-load RDF files into a (new or existing) store directory.

    Args:
        store_dir: Directory of the on-disk store; created when missing.
        paths: RDF files to load.

    Returns:
        The number of triples in the store afterwards.

    Raises:
        ConfigurationError: A file is missing, of an unknown type or not valid RDF.
    """
    store_dir.mkdir(parents=True, exist_ok=True)
    store = ox.Store(str(store_dir))
    try:
        for path in paths:
            if not path.is_file():
                raise ConfigurationError(f"RDF file not found: {path}")
            try:
                fmt = sniff_rdf_format(path)
                store.bulk_load(path=str(path), format=fmt)
            except (ValueError, SyntaxError) as exc:
                raise ConfigurationError(f"cannot load {path}: {exc}") from exc
        store.flush()
        store.optimize()
        return len(store)
    finally:
        del store


class EmbeddedStore:
    """A read-only pyoxigraph store implementing :class:`~saga_kgqa.kg.backend.KGBackend`.

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
    ) -> None:
        """Open an on-disk store read-only.

        Args:
            store_dir: Directory written by :func:`load_files` or ``saga load``.
            profile: Endpoint profile (``embedded`` by default).
            owns_dir: Delete the directory on :meth:`close` (temporary stores).
            endpoint_id: Stable identity of the store's content; defaults to its path.
            worker_startup_timeout_s: How long the query worker may take to start.

        Raises:
            ConfigurationError: The directory is not a store.
        """
        if not store_dir.is_dir():
            raise ConfigurationError(f"store directory not found: {store_dir}")
        try:
            self._store: ox.Store | None = ox.Store.read_only(str(store_dir))
        except OSError as exc:
            raise ConfigurationError(f"cannot open store {store_dir}: {exc}") from exc
        self._union = has_named_graphs(self._store)
        self._dir = store_dir
        self._owns_dir = owns_dir
        self._profile = profile or get_profile("embedded")
        self._prefixes = dict(self._profile.prefixes)
        self._endpoint_id = endpoint_id or f"embedded:{store_dir.resolve()}"
        self._worker = QueryWorker(store_dir, self._prefixes, startup_timeout_s=worker_startup_timeout_s)

    @classmethod
    def from_files(cls, paths: Iterable[Path], *, profile: EndpointProfile | None = None) -> EmbeddedStore:
        """Load RDF files into a temporary store directory and open it read-only.

        The store's ``endpoint_id`` is derived from the files' content, so it is the same
        on every run over the same data.

        Raises:
            ConfigurationError: A file is missing, of an unknown type or not valid RDF.
        """
        files = list(paths)
        tmp = Path(tempfile.mkdtemp(prefix="saga-store-"))
        try:
            load_files(tmp, files)
            endpoint_id = f"embedded:files:{content_digest(files)[:32]}"
            return cls(tmp, profile=profile, owns_dir=True, endpoint_id=endpoint_id)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
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
    def worker_pid(self) -> int | None:
        """The process id of the query worker, or ``None`` when none is running."""
        return self._worker.pid

    def __len__(self) -> int:
        return len(self._open_store())

    def __enter__(self) -> EmbeddedStore:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        """Run a checked query, reading lazily up to the row cap.

        Template queries run in-process and are not bounded by the deadline (they are
        anchored and LIMITed by construction); guard queries run in the worker process,
        which is killed when the deadline passes.

        Raises:
            QuerySyntaxError: pyoxigraph rejected the query (every update form lands here).
            QueryTimeout: A guard query ran past ``limits.deadline_s``.
            EndpointUnavailable: The store is closed, failed, or its worker could not run.
            BackendError: The store could not evaluate the query for another reason.
        """
        limits = limits or ExecutionLimits()
        if query.origin == "template":
            return self._execute_in_process(query, limits)
        return self._worker.run(query, limits)

    def _execute_in_process(self, query: CheckedQuery, limits: ExecutionLimits) -> QueryResult:
        store = self._open_store()
        started = time.perf_counter()
        try:
            # Named graphs record provenance (one graph per source); queries see their union.
            raw = store.query(query.text, prefixes=self._prefixes, use_default_graph_as_union=self._union)
            return collect_result(raw, query.form, limits.max_rows, started)
        except SyntaxError as exc:
            raise QuerySyntaxError(f"the store rejected the query: {exc}", server_text=str(exc)) from exc
        except OSError as exc:
            raise EndpointUnavailable(f"the embedded store failed while answering: {exc}") from exc

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

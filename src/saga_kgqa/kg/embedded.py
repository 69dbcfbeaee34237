"""The embedded graph store on pyoxigraph.

Files (Turtle, N-Triples, RDF/XML, OWL, ...) are bulk-loaded into a store directory,
which is then opened read-only as a second line of defence behind the guard
(docs/faults.md C3). Queries built by saga-kgqa from templates run in-process with
lazy iteration, so row caps cost only the rows kept.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

import pyoxigraph as ox

from saga_kgqa.errors import ConfigurationError, QuerySyntaxError
from saga_kgqa.kg.backend import ExecutionLimits
from saga_kgqa.kg.oxigraph_terms import collect_result, rdf_format_for
from saga_kgqa.kg.profiles import EndpointProfile, get_profile
from saga_kgqa.kg.query import CheckedQuery
from saga_kgqa.kg.result import QueryResult


def sniff_rdf_format(path: Path) -> ox.RdfFormat:
    """Return the serialisation of an RDF file, looking inside ``.owl`` files (RDF/XML or Turtle)."""
    if path.suffix.lower() == ".owl":
        with path.open("rb") as handle:
            head = handle.read(512).lstrip()
        return ox.RdfFormat.RDF_XML if head.startswith(b"<") else ox.RdfFormat.TURTLE
    return rdf_format_for(path.suffix)


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
    """A read-only pyoxigraph store implementing :class:`~saga_kgqa.kg.backend.KGBackend`."""

    def __init__(
        self,
        store_dir: Path,
        *,
        profile: EndpointProfile | None = None,
        owns_dir: bool = False,
    ) -> None:
        """Open an on-disk store read-only.

        Args:
            store_dir: Directory written by :func:`load_files` or ``saga load``.
            profile: Endpoint profile (``embedded`` by default).
            owns_dir: Delete the directory on :meth:`close` (temporary stores).

        Raises:
            ConfigurationError: The directory is not a store.
        """
        if not store_dir.is_dir():
            raise ConfigurationError(f"store directory not found: {store_dir}")
        try:
            self._store = ox.Store.read_only(str(store_dir))
        except OSError as exc:
            raise ConfigurationError(f"cannot open store {store_dir}: {exc}") from exc
        self._dir = store_dir
        self._owns_dir = owns_dir
        self._profile = profile or get_profile("embedded")
        self._prefixes = dict(self._profile.prefixes)

    @classmethod
    def from_files(cls, paths: Iterable[Path], *, profile: EndpointProfile | None = None) -> EmbeddedStore:
        """Load RDF files into a temporary store directory and open it read-only."""
        tmp = Path(tempfile.mkdtemp(prefix="saga-store-"))
        try:
            load_files(tmp, paths)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return cls(tmp, profile=profile, owns_dir=True)

    @property
    def endpoint_id(self) -> str:
        """Identify the store by its directory."""
        return f"embedded:{self._dir.resolve()}"

    @property
    def profile(self) -> EndpointProfile:
        """The endpoint profile in force."""
        return self._profile

    @property
    def store_dir(self) -> Path:
        """The on-disk store directory."""
        return self._dir

    def __len__(self) -> int:
        return len(self._store)

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        """Run a checked query in-process with lazy iteration up to the row cap.

        Raises:
            QuerySyntaxError: pyoxigraph rejected the query.
        """
        limits = limits or ExecutionLimits()
        started = time.perf_counter()
        try:
            raw = self._store.query(query.text, prefixes=self._prefixes)
            return collect_result(raw, query.form, limits.max_rows, started)
        except SyntaxError as exc:
            raise QuerySyntaxError(f"the store rejected the query: {exc}", server_text=str(exc)) from exc

    def close(self) -> None:
        """Release the store and delete it when it was temporary."""
        del self._store
        if self._owns_dir:
            shutil.rmtree(self._dir, ignore_errors=True)

"""Open the backend an operator configured: embedded files, a persisted store, or a remote endpoint."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.cache.replay_cache import CacheMode, RecordReplayBackend
from saga_kgqa.kg.core.backend import KGBackend
from saga_kgqa.kg.core.profiles import EndpointProfile, get_profile
from saga_kgqa.kg.embedded.declared_prefixes import (
    load_store_prefixes,
    read_declared_prefixes,
    save_store_prefixes,
    with_prefixes,
)
from saga_kgqa.kg.embedded.loading import build_store
from saga_kgqa.kg.embedded.store import EmbeddedStore

if TYPE_CHECKING:
    from saga_kgqa.kg.embedded.store_cache import StoreCache


def open_backend(
    *,
    data: list[Path] | None = None,
    store_dir: Path | None = None,
    endpoint: str | None = None,
    profile: str | None = None,
    contact: str | None = None,
    cache_dir: Path | None = None,
    cache_mode: CacheMode | str = CacheMode.OFF,
    default_graphs: Sequence[str] = (),
    named_graphs: Sequence[str] = (),
    store_cache: StoreCache | None = None,
) -> KGBackend:
    """Open one knowledge-graph backend from operator settings.

    Exactly one source must be given:

    * ``data`` as RDF files: they are bulk-loaded into a temporary store that is deleted
      on ``close()`` or, when ``store_dir`` is also given, into that (kept) directory,
      atomically (a file that fails to load leaves it as it was);
    * ``data`` as one directory, or ``store_dir`` alone: an existing store, opened read-only;
    * ``endpoint``: a remote SPARQL endpoint URL.

    Args:
        data: RDF files to load, or a single store directory.
        store_dir: A persisted store directory to open, or to load ``data`` into.
        endpoint: URL of a remote SPARQL endpoint.
        profile: Endpoint profile name; ``embedded`` for stores and ``generic`` for
            endpoints when omitted.
        contact: Operator contact (URL or e-mail) sent in the remote User-Agent.
        cache_dir: Directory of the record/replay cache; required unless ``cache_mode`` is off.
        cache_mode: How to use the record/replay cache (a :class:`CacheMode` or its value).
        default_graphs: Graphs whose merge is every query's default graph
            (``default-graph-uri``), for an endpoint only. Without them, a profile
            with system graphs (Virtuoso) scopes queries to the store's data graphs.
        named_graphs: Graphs a query may name with ``GRAPH`` (``named-graph-uri``), for an endpoint only.
        store_cache: Where files given without ``store_dir`` are loaded once and reused read-only
            (keyed by their content); a temporary store per call when omitted or when they do not fit it.

    Returns:
        The backend, wrapped in a :class:`RecordReplayBackend` when caching is on.

    Raises:
        ConfigurationError: The settings are contradictory or incomplete, a file or
            directory is missing or unreadable, or the profile is unknown or does not fit
            the backend (a remote server's profile on an embedded store, or the reverse).
    """
    mode = _cache_mode(cache_mode)
    if mode is not CacheMode.OFF and cache_dir is None:
        raise ConfigurationError(f"cache mode {mode.value!r} needs a cache directory")
    if (default_graphs or named_graphs) and endpoint is None:
        raise ConfigurationError("default and named graphs apply to an endpoint only; local stores have one graph")
    if endpoint is not None:
        if data or store_dir is not None:
            raise ConfigurationError("give either an endpoint URL or local data/a store directory, not both")
        backend = _open_endpoint(endpoint, profile, contact, tuple(default_graphs), tuple(named_graphs))
    else:
        backend = _open_uncached(data=data or [], store_dir=store_dir, profile=profile, store_cache=store_cache)
    if mode is CacheMode.OFF or cache_dir is None:
        return backend
    return RecordReplayBackend(backend, cache_dir=cache_dir, mode=mode)


def _cache_mode(value: CacheMode | str) -> CacheMode:
    try:
        return CacheMode(value)
    except ValueError:
        known = ", ".join(mode.value for mode in CacheMode)
        raise ConfigurationError(f"unknown cache mode {value!r}; expected one of {known}") from None


def _open_endpoint(
    endpoint: str,
    profile: str | None,
    contact: str | None,
    default_graphs: tuple[str, ...],
    named_graphs: tuple[str, ...],
) -> KGBackend:
    # Imported here so that embedded-only use never loads the HTTP stack.
    from saga_kgqa.kg.remote.endpoint import RemoteEndpoint
    from saga_kgqa.kg.remote.graph_scope import DataGraphScope

    base = get_profile(profile or "generic")
    if base.name == "embedded":
        raise ConfigurationError("profile 'embedded' describes a local store; give an endpoint profile such as generic")
    if default_graphs or named_graphs:
        base = replace(base, default_graphs=default_graphs, named_graphs=named_graphs)

    def make(chosen: EndpointProfile) -> KGBackend:
        # The annotation makes mypy check RemoteEndpoint against the KGBackend protocol.
        remote: KGBackend = RemoteEndpoint(endpoint, profile=chosen, contact=contact)
        return remote

    if base.system_graph_prefixes and not base.default_graphs:
        return DataGraphScope(make, base)
    return make(base)


def _open_uncached(
    *, data: list[Path], store_dir: Path | None, profile: str | None, store_cache: StoreCache | None
) -> KGBackend:
    # The data's own prefixes (pv:, ex:, ...) join the profile's, so the ids the tools
    # show are the ids the guard accepts in a query.
    base_profile = get_profile(profile or "embedded")
    directories = [path for path in data if path.is_dir()]
    if directories:
        if len(data) > 1 or store_dir is not None:
            raise ConfigurationError(
                f"{directories[0]} is a store directory; give it alone, not together with files or another store"
            )
        stored = load_store_prefixes(directories[0])
        return EmbeddedStore(directories[0], profile=with_prefixes(base_profile, stored))
    file_profile = with_prefixes(base_profile, read_declared_prefixes(data))
    if data and store_dir is not None:
        declared = read_declared_prefixes(data)
        build_store(store_dir, data, finish=lambda built: save_store_prefixes(built, declared))
        return EmbeddedStore(store_dir, profile=file_profile)
    if data and store_cache is not None:
        cached = EmbeddedStore.from_cache(store_cache, data, profile=file_profile)
        if cached is not None:
            return cached
    if data:
        return EmbeddedStore.from_files(data, profile=file_profile)
    if store_dir is not None:
        return EmbeddedStore(store_dir, profile=with_prefixes(base_profile, load_store_prefixes(store_dir)))
    raise ConfigurationError("no knowledge graph configured: give RDF files, a store directory or an endpoint URL")

"""The defaults of a run's context: the graph it names (``source``, ``data`` / ``endpoint``), or the example graph.

Opening a store and building its schema index takes a moment, so toolboxes are cached
per source, dialect, schema file and search for the life of the process (a server
answers many runs from one).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from saga_kgqa.app.sources import source_set, toolbox_for_source
from saga_kgqa.app.toolboxes import open_toolbox
from saga_kgqa.config import settings
from saga_kgqa.config.catalog import CATALOG_ENV, DEFAULT_CATALOG_PATH, Catalog
from saga_kgqa.config.context import SagaContext
from saga_kgqa.config.open_options import OpenOptions
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.tools.toolbox import SagaToolbox

_CacheKey = tuple[str | None, str | None, str | None, str, str | None, str, str]
_CACHE: dict[_CacheKey, SagaToolbox] = {}
_SOURCE_SETS: dict[str, SourceSet] = {}
_LOCK = threading.Lock()
K = TypeVar("K")
V = TypeVar("V")


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
    return _cached(_SOURCE_SETS, catalog.model_dump_json(), lambda: source_set(catalog))


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
        str(settings.data_dir()),  # the dialect's offline index is read from it (app.open.open_schema)
    )
    return _cached(_CACHE, key, lambda: _open(context))


def _cached(cache: dict[K, V], key: K, build: Callable[[], V]) -> V:
    """``cache[key]``, built under the lock on first use (a server's first runs may race for it)."""
    with _LOCK:
        found = cache.get(key)
        if found is None:
            found = cache[key] = build()
        return found


def _open(context: SagaContext) -> SagaToolbox:
    paths = [Path(p.strip()) for p in (context.data or "").split(",") if p.strip()]
    schema_file = Path(context.schema_index) if context.schema_index else None
    options = OpenOptions(context.dialect, schema_file, None, context.entity_search)
    return open_toolbox(paths, context.endpoint, context.profile, options)

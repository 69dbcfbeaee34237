"""The default toolbox: the graph a context names (``data`` / ``endpoint``), or the shipped example graph.

Opening a store and building its schema index takes a moment, so toolboxes are cached
per source for the life of the process (a server answers many runs from one).
"""

from __future__ import annotations

import threading
from pathlib import Path

from saga_kgqa.context import SagaContext
from saga_kgqa.graph.toolbox import SagaToolbox
from saga_kgqa.kg.declared_prefixes import read_declared_prefixes
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.schema import build_schema_index
from saga_kgqa.settings import example_graph_path

_CACHE: dict[tuple[str | None, str | None, str | None], SagaToolbox] = {}
_LOCK = threading.Lock()


def toolbox_from_context(context: SagaContext) -> SagaToolbox:
    """The toolbox for ``context.data`` or ``context.endpoint`` (the example graph when neither is set).

    Raises:
        ConfigurationError: The data or endpoint settings are unusable.
        BackendError: The graph failed while the schema index was built.
    """
    key = (context.data, context.endpoint, context.profile)
    with _LOCK:
        found = _CACHE.get(key)
        if found is None:
            found = _open(context)
            _CACHE[key] = found
        return found


def _open(context: SagaContext) -> SagaToolbox:
    paths: list[Path] = []
    if context.endpoint is None:
        paths = [Path(p.strip()) for p in (context.data or "").split(",") if p.strip()] or [example_graph_path()]
    backend = open_backend(data=paths or None, endpoint=context.endpoint, profile=context.profile)
    schema = build_schema_index(backend, induce=True)
    # The data files' own prefixes make the ids the model sees short and familiar.
    return SagaToolbox(KnowledgeGraph(backend), schema, prefixes=read_declared_prefixes(paths))

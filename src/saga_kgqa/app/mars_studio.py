"""The MARS graph that ``langgraph dev`` serves as ``mars`` (see :mod:`saga_kgqa.app.studio`).

Un-checkpointed, and under the same caller rule as ``saga``: a run's context names a source and a
model of the operator's catalog, never a URL, a path or a key.
"""

from __future__ import annotations

from saga_kgqa.app.caller import CallerModelFactory, CallerToolboxFactory
from saga_kgqa.config.catalog import Catalog
from saga_kgqa.mars.builder import MarsGraph, build_mars_graph

_catalog = Catalog.from_env()

#: The compiled, un-checkpointed graph served as ``mars``.
graph: MarsGraph = build_mars_graph(
    model_factory=CallerModelFactory(_catalog), toolbox_factory=CallerToolboxFactory(_catalog), name="mars"
)

"""The MARS graph that ``langgraph dev`` serves as ``mars`` (un-checkpointed; see :mod:`saga_kgqa.graph.studio`)."""

from __future__ import annotations

from saga_kgqa.mars.builder import MarsGraph, build_mars_graph
from saga_kgqa.models import ConfiguredModelFactory

#: The compiled, un-checkpointed graph served as ``mars``.
graph: MarsGraph = build_mars_graph(model_factory=ConfiguredModelFactory(), name="mars")

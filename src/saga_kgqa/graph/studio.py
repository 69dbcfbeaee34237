"""The graph that ``langgraph dev`` serves (LangGraph Studio and the LangGraph HTTP API).

``langgraph.json`` at the repository root points here. The graph is compiled without a
checkpointer, because the server brings its own (and refuses to start on a graph that has
one). Everything a run needs comes from the run's context or the environment:

* the model from ``SAGA_BASE_URL`` / ``SAGA_MODEL`` / ``SAGA_API_KEY`` (or the context's
  ``model`` and ``base_url``), see :class:`saga_kgqa.models.ConfiguredModelFactory`;
* the knowledge graph from the context's ``data`` / ``endpoint`` (or ``SAGA_DATA`` /
  ``SAGA_ENDPOINT``), the shipped example graph when neither is set.

Start it with analytics, the version check and tracing off (the port is required: the
default 2024 may be taken, and the server then silently picks another)::

    export LANGGRAPH_CLI_NO_ANALYTICS=1 LANGGRAPH_NO_VERSION_CHECK=true LANGSMITH_TRACING=false
    langgraph dev --no-browser --port 8123
"""

from __future__ import annotations

from saga_kgqa.graph.builder import SagaGraph, build_graph
from saga_kgqa.models import ConfiguredModelFactory

#: The compiled, un-checkpointed graph served as ``saga``.
graph: SagaGraph = build_graph(model_factory=ConfiguredModelFactory(), name="saga")

"""The graph that ``langgraph dev`` serves (LangGraph Studio and the LangGraph HTTP API).

``langgraph.json`` at the repository root points here. The graph is compiled without a
checkpointer, because the server brings its own (and refuses to start on a graph that has
one). A run's context comes from whoever posts to the server, so it chooses infrastructure
only by name from the operator's catalog (:mod:`saga_kgqa.sources.catalog`,
``$SAGA_CATALOG``), and a context that sets ``base_url``, ``endpoint``, ``data`` or another
infrastructure field is refused before anything is contacted (:mod:`saga_kgqa.app.caller`):

* the model: a ``[models.NAME]`` record named by the context's ``model``, else the
  environment's (``SAGA_BASE_URL`` / ``SAGA_MODEL`` / ``SAGA_API_KEY``, or ``SAGA_MODEL_FACTORY``);
* the knowledge graph: the ``[sources.NAME]`` entry named by the context's ``source``, else
  the catalog's default (without a catalog file: ``SAGA_DATA`` / ``SAGA_ENDPOINT`` as the
  source ``default``, and the shipped example graph as ``example``).

Switches and budgets stay the caller's, up to the catalog's ``[limits]``.

Start it with analytics, the version check and tracing off (the port is required: the
default 2024 may be taken, and the server then silently picks another)::

    export LANGGRAPH_CLI_NO_ANALYTICS=1 LANGGRAPH_NO_VERSION_CHECK=true LANGSMITH_TRACING=false
    langgraph dev --no-browser --port 8123
"""

from __future__ import annotations

from saga_kgqa.app.caller import CallerModelFactory, CallerSourcesFactory, CallerToolboxFactory
from saga_kgqa.graph.builder import SagaGraph, build_graph
from saga_kgqa.sources.catalog import Catalog

_catalog = Catalog.from_env()

#: The compiled, un-checkpointed graph served as ``saga``.
graph: SagaGraph = build_graph(
    model_factory=CallerModelFactory(_catalog),
    toolbox_factory=CallerToolboxFactory(_catalog),
    sources_factory=CallerSourcesFactory(_catalog),
    name="saga",
)

"""The graph that ``langgraph dev`` serves (LangGraph Studio and the LangGraph HTTP API).

``langgraph.json`` at the repository root points here. The graph is compiled without a
checkpointer, because the server brings its own (and refuses to start on a graph that has
one). A run's context comes from whoever posts to the server, so it chooses infrastructure
only by name from the operator's catalog (:mod:`saga_kgqa.config.catalog`,
``$SAGA_CATALOG``), and a context that sets ``base_url``, ``endpoint``, ``data`` or another
infrastructure field is refused before anything is contacted (:mod:`saga_kgqa.app.caller`):

* the model: a ``[models.NAME]`` record named by the context's ``model``, else the
  environment's (``SAGA_BASE_URL`` / ``SAGA_MODEL`` / ``SAGA_API_KEY``, or ``SAGA_MODEL_FACTORY``);
* the knowledge graph: the ``[sources.NAME]`` entry named by the context's ``source``, else
  the catalog's default (without a catalog file: ``SAGA_DATA`` / ``SAGA_ENDPOINT`` as the
  source ``default``, and the shipped example graph as ``example``).

Switches and budgets stay the caller's, up to the catalog's ``[limits]``. A context that
asks for more (or sets infrastructure) is refused with its reason: ``langgraph_sdk`` raises
``CallerContextRefused: max_steps=10000 exceeds the operator's limit of 50``, never "internal error".

The server's ``updates`` stream shows only output keys, so the served graph's output adds
the chosen action (``pending_action``: tool, argument, thought), the answer type and each
step's record (:class:`StudioOutput`): a watcher sees which action was chosen, and why.

Start it with analytics, the version check and tracing off (the port is required: the
default 2024 may be taken, and the server then silently picks another)::

    export LANGGRAPH_CLI_NO_ANALYTICS=1 LANGGRAPH_NO_VERSION_CHECK=true LANGSMITH_TRACING=false
    langgraph dev --no-browser --port 8123
"""

from __future__ import annotations

import operator
from typing import Annotated

from saga_kgqa.app.caller import CallerModelFactory, CallerSourcesFactory, CallerToolboxFactory
from saga_kgqa.config.catalog import Catalog
from saga_kgqa.graph.builder import SagaGraph, build_graph
from saga_kgqa.state import Action, AnswerType, Step
from saga_kgqa.state.graph_state import OutputState


class StudioOutput(OutputState, total=False):
    """What the served graph returns and streams: the output, plus the steps as they are chosen and taken."""

    answer_type: AnswerType | None
    pending_action: Action | None
    history: Annotated[list[Step], operator.add]


_catalog = Catalog.from_env()

#: The compiled, un-checkpointed graph served as ``saga``.
graph: SagaGraph = build_graph(
    model_factory=CallerModelFactory(_catalog),
    toolbox_factory=CallerToolboxFactory(_catalog),
    sources_factory=CallerSourcesFactory(_catalog),
    name="saga",
    output_schema=StudioOutput,
)

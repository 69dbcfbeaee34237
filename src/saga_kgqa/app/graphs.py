"""The SAGA graph with today's defaults: the public ``build_graph`` (``saga_kgqa.agent`` re-exports it).

The agent package compiles the controller over the factories it is given and opens nothing
itself; this is where a caller that names none gets the defaults a run's context implies.
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import RetryPolicy

from saga_kgqa.agent import builder
from saga_kgqa.agent.builder import SagaGraph
from saga_kgqa.agent.dependencies import SourcesFactory, ToolboxFactory
from saga_kgqa.agent.model_calls import ModelFactory
from saga_kgqa.app.defaults import sources_from_catalog_file, toolbox_from_context
from saga_kgqa.state.schema import OutputState


def build_graph(
    *,
    model_factory: ModelFactory | None = None,
    toolbox_factory: ToolboxFactory | None = None,
    sources_factory: SourcesFactory | None = None,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    model_retry: RetryPolicy | None = None,
    name: str = "saga",
    output_schema: type[Any] = OutputState,
) -> SagaGraph:
    """Compile the SAGA controller graph (:func:`saga_kgqa.agent.builder.build_graph`), defaults filled in.

    Args:
        model_factory: Returns the chat model for ``(context, role)``; without one, the CLI's
            model settings (``SAGA_BASE_URL``, ``SAGA_MODEL``, ``SAGA_API_KEY`` / ``OPENAI_API_KEY``,
            ``SAGA_MODEL_FACTORY``) are read when a run first calls the model.
        toolbox_factory: Returns the toolbox for a context; by default
            :func:`~saga_kgqa.app.defaults.toolbox_from_context`: the graph named by
            ``context.source``, ``context.data`` / ``context.endpoint`` (the shipped example graph
            when none is set).
        sources_factory: Returns the operator's named sources for a context; by default
            :func:`~saga_kgqa.app.defaults.sources_from_catalog_file`: the catalog file
            (``$SAGA_CATALOG``) when one is configured, else none.
        checkpointer: Attach one only in applications (CLI, tests); ``langgraph dev`` refuses
            graphs compiled with a checkpointer.
        model_retry: Retry policy of the model-calling nodes (by default three attempts, only
            for transient provider errors).
        name: The graph's name (run name in traces, node name when embedded).
        output_schema: The keys a caller gets back (:class:`OutputState` by default).

    Returns:
        The compiled graph: input ``InputState``, output ``OutputState``, context ``SagaContext``.
    """
    return builder.build_graph(
        model_factory=model_factory,
        toolbox_factory=toolbox_factory if toolbox_factory is not None else toolbox_from_context,
        sources_factory=sources_factory if sources_factory is not None else sources_from_catalog_file,
        checkpointer=checkpointer,
        model_retry=model_retry,
        name=name,
        output_schema=output_schema,
    )

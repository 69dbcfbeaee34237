"""The SAGA graph with today's defaults: the public ``build_graph`` (the package door ``saga_kgqa`` exports it).

The agent package compiles the controller over the factories it is given and opens nothing
itself; this is where a caller that names none gets the defaults a run's context implies.
"""

from __future__ import annotations

from typing import Unpack

from saga_kgqa.app.defaults import sources_from_catalog_file, toolbox_from_context
from saga_kgqa.graph import builder
from saga_kgqa.graph.builder import GraphOptions, SagaGraph
from saga_kgqa.graph.dependencies import SourcesFactory, ToolboxFactory


def build_graph(
    *,
    toolbox_factory: ToolboxFactory | None = None,
    sources_factory: SourcesFactory | None = None,
    **options: Unpack[GraphOptions],
) -> SagaGraph:
    """Compile the SAGA controller graph (:func:`saga_kgqa.graph.builder.build_graph`), defaults filled in.

    Args:
        toolbox_factory: Returns the toolbox for a context; by default
            :func:`~saga_kgqa.app.defaults.toolbox_from_context`: the graph named by
            ``context.source``, ``context.data`` / ``context.endpoint`` (the shipped example graph
            when none is set).
        sources_factory: Returns the operator's named sources for a context; by default
            :func:`~saga_kgqa.app.defaults.sources_from_catalog_file`: the catalog file
            (``$SAGA_CATALOG``) when one is configured, else none.
        **options: The other keywords of :func:`saga_kgqa.graph.builder.build_graph`
            (:class:`~saga_kgqa.graph.builder.GraphOptions`): ``model_factory`` (without one, the CLI's
            model settings, ``SAGA_BASE_URL``, ``SAGA_MODEL``, ``SAGA_API_KEY`` / ``OPENAI_API_KEY`` or
            ``SAGA_MODEL_FACTORY``, are read when a run first calls the model), ``checkpointer``,
            ``model_retry``, ``name`` and ``output_schema``.

    Returns:
        The compiled graph: input ``InputState``, output ``OutputState``, context ``SagaContext``.
    """
    return builder.build_graph(
        toolbox_factory=toolbox_factory if toolbox_factory is not None else toolbox_from_context,
        sources_factory=sources_factory if sources_factory is not None else sources_from_catalog_file,
        **options,
    )

"""The controller's old import path: the LangGraph controller now lives in :mod:`saga_kgqa.agent`.

``graph/`` meant the LangGraph controller in a project where "graph" otherwise means the knowledge
graph, so the folder was renamed ``agent/``. Embedders' imports (``from saga_kgqa.graph import
build_graph``), ``langgraph.json`` files naming ``saga_kgqa.graph.studio:graph`` and the composition
root's old homes (``saga_kgqa.graph.defaults``, ``saga_kgqa.graph.caller``) keep working through these
re-exports. Checkpoints never named this package (their records live in :mod:`saga_kgqa.state`), so
old threads resume either way. New code imports :mod:`saga_kgqa.agent`.
"""

from saga_kgqa.agent import (
    GraphDependencies,
    ModelFactory,
    ModelRole,
    SagaGraph,
    SagaToolbox,
    ToolboxFactory,
    ToolView,
    build_graph,
    checkpoint_serde,
    recursion_limit,
    run_config,
    transient_provider_error,
)


def __getattr__(name: str) -> object:
    # As in saga_kgqa.agent: the default toolbox lives in the composition root, loaded on first use.
    if name == "toolbox_from_context":
        from saga_kgqa.app.defaults import toolbox_from_context

        return toolbox_from_context
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "GraphDependencies",
    "ModelFactory",
    "ModelRole",
    "SagaGraph",
    "SagaToolbox",
    "ToolView",
    "ToolboxFactory",
    "build_graph",
    "checkpoint_serde",
    "recursion_limit",
    "run_config",
    "toolbox_from_context",
    "transient_provider_error",
]

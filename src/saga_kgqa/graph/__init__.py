"""The controller's old import path: the LangGraph controller now lives in :mod:`saga_kgqa.agent`.

``graph/`` meant the LangGraph controller in a project where "graph" otherwise means the knowledge
graph, so the folder was renamed ``agent/``. Embedders' imports (``from saga_kgqa.graph import
build_graph``), ``langgraph.json`` files naming ``saga_kgqa.graph.studio:graph`` and the composition
root's old homes (``saga_kgqa.graph.defaults``, ``saga_kgqa.graph.caller``) keep working through these
re-exports. Checkpoints never named this package (their records live in :mod:`saga_kgqa.state`), so
old threads resume either way. New code imports :mod:`saga_kgqa.agent`.
"""

# The old path names exactly what the new one does (build_graph and toolbox_from_context included,
# which the agent package loads from the composition root on first use).
from saga_kgqa.agent import *  # noqa: F403
from saga_kgqa.agent import __all__ as __all__

"""Old path of :mod:`saga_kgqa.app.studio`: a ``langgraph.json`` naming ``saga_kgqa.graph.studio:graph`` loads."""

from saga_kgqa.app.studio import StudioOutput, graph

__all__ = ["StudioOutput", "graph"]

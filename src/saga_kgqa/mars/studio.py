"""Old path of :mod:`saga_kgqa.app.mars_studio`: a ``langgraph.json`` naming ``saga_kgqa.mars.studio:graph`` loads."""

from saga_kgqa.app.mars_studio import graph

__all__ = ["graph"]

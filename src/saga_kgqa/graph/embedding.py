"""Old path of :mod:`saga_kgqa.agent.embedding` (embedding the SAGA graph in a parent graph)."""

from saga_kgqa.agent.embedding import saga_node

__all__ = ["saga_node"]

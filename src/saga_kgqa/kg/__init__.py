"""Talking to graph stores: typed results, the read-only guard, backends and the replay cache.

The names below are loaded on first use (PEP 562), so importing one light submodule
(``saga_kgqa.kg.replay_cache`` for its ``CacheMode``, say) does not load the guard and
rdflib's SPARQL parser with it: the CLI's ``--help`` must stay as cheap as typer itself.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from saga_kgqa.kg.backend import ExecutionLimits, KGBackend
    from saga_kgqa.kg.guard import GuardPolicy, QueryGuard
    from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
    from saga_kgqa.kg.profiles import PROFILES, EndpointProfile, get_profile
    from saga_kgqa.kg.query import CheckedQuery, from_template
    from saga_kgqa.kg.result import QueryResult, Term

_HOMES = {
    "ExecutionLimits": "backend",
    "KGBackend": "backend",
    "GuardPolicy": "guard",
    "QueryGuard": "guard",
    "KnowledgeGraph": "knowledge_graph",
    "PROFILES": "profiles",
    "EndpointProfile": "profiles",
    "get_profile": "profiles",
    "CheckedQuery": "query",
    "from_template": "query",
    "QueryResult": "result",
    "Term": "result",
}

__all__ = [
    "PROFILES",
    "CheckedQuery",
    "EndpointProfile",
    "ExecutionLimits",
    "GuardPolicy",
    "KGBackend",
    "KnowledgeGraph",
    "QueryGuard",
    "QueryResult",
    "Term",
    "from_template",
    "get_profile",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)

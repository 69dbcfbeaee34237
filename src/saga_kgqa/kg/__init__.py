"""Talking to graph stores: typed results, the read-only guard, backends and the replay cache.

One room each: ``core`` (typed results, checked queries, the backend protocol, profiles,
clocks), ``guard`` (the read-only guard and its SPARQL text work), ``embedded`` (the pyoxigraph
store, loading and its query worker), ``remote`` (SPARQL-protocol endpoints over HTTP), ``cache``
(record/replay). ``knowledge_graph`` is the one entry point (guard, then backend); ``opening``
opens what the operator configured.

The names below are loaded on first use (PEP 562), so importing one light submodule
(``saga_kgqa.kg.cache.replay_cache`` for its ``CacheMode``, say) does not load the guard and
rdflib's SPARQL parser with it: the CLI's ``--help`` must stay as cheap as typer itself.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from saga_kgqa.kg.core.backend import ExecutionLimits, KGBackend
    from saga_kgqa.kg.core.profiles import PROFILES, EndpointProfile, get_profile
    from saga_kgqa.kg.core.query import CheckedQuery, from_template
    from saga_kgqa.kg.core.result import QueryResult, Term
    from saga_kgqa.kg.guard.query_guard import GuardPolicy, QueryGuard
    from saga_kgqa.kg.knowledge_graph import KnowledgeGraph

_HOMES = {
    "ExecutionLimits": "core.backend",
    "KGBackend": "core.backend",
    "GuardPolicy": "guard.query_guard",
    "QueryGuard": "guard.query_guard",
    "KnowledgeGraph": "knowledge_graph",
    "PROFILES": "core.profiles",
    "EndpointProfile": "core.profiles",
    "get_profile": "core.profiles",
    "CheckedQuery": "core.query",
    "from_template": "core.query",
    "QueryResult": "core.result",
    "Term": "core.result",
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

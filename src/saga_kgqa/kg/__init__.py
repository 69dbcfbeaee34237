"""Talking to graph stores: typed results, the read-only guard, backends and the replay cache."""

from __future__ import annotations

from saga_kgqa.kg.backend import ExecutionLimits, KGBackend
from saga_kgqa.kg.guard import GuardPolicy, QueryGuard
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.profiles import PROFILES, EndpointProfile, get_profile
from saga_kgqa.kg.query import CheckedQuery, from_template
from saga_kgqa.kg.result import QueryResult, Term

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

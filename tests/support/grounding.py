"""Test support for the grounding tools: the mini graph, its schema index and a query-recording reader."""

from __future__ import annotations

from pathlib import Path

from saga_kgqa.kg.backend import ExecutionLimits, KGBackend
from saga_kgqa.kg.profiles import EndpointProfile
from saga_kgqa.kg.query import CheckedQuery
from saga_kgqa.kg.result import QueryResult

MINI_TTL = Path(__file__).resolve().parent.parent / "data" / "mini.ttl"
EX = "http://example.org/mini/vocab#"
RES = "http://example.org/mini/res/"
MINI_PREFIXES = {"ex": EX, "res": RES, "skos": "http://www.w3.org/2004/02/skos/core#"}


class RecordingReader:
    """A graph reader over a backend that records every query it runs."""

    def __init__(self, backend: KGBackend) -> None:
        self.backend = backend
        self.queries: list[CheckedQuery] = []

    @property
    def profile(self) -> EndpointProfile:
        return self.backend.profile

    def run(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        self.queries.append(query)
        return self.backend.execute(query, limits)

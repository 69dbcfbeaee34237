"""Backends for the execute tool's tests: one that counts what reaches the store, one that fails on cue."""

from __future__ import annotations

from saga_kgqa.errors import BackendError
from saga_kgqa.kg.core.backend import ExecutionLimits, KGBackend
from saga_kgqa.kg.core.profiles import EndpointProfile
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.core.result import QueryResult


class CountingBackend:
    """Wraps a backend and records every query (and its limits) that reaches it, below the guard and the facade."""

    def __init__(self, inner: KGBackend) -> None:
        self.inner = inner
        self.queries: list[CheckedQuery] = []
        self.limits: list[ExecutionLimits] = []

    @property
    def endpoint_id(self) -> str:
        return self.inner.endpoint_id

    @property
    def profile(self) -> EndpointProfile:
        return self.inner.profile

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        self.queries.append(query)
        self.limits.append(limits or ExecutionLimits())
        return self.inner.execute(query, limits)

    def close(self) -> None:
        """The wrapped store belongs to the test fixture; closing the facade must not close it."""

    def texts(self, origin: str | None = None) -> list[str]:
        """The texts that reached the store, optionally only those of one origin (guard or template)."""
        return [q.text for q in self.queries if origin is None or q.origin == origin]


class FailingBackend(CountingBackend):
    """Raises a scripted error for every query that passed the guard; templates still run."""

    def __init__(self, inner: KGBackend, error: BackendError) -> None:
        super().__init__(inner)
        self.error = error

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        if query.origin == "guard":
            self.queries.append(query)
            raise self.error
        return super().execute(query, limits)

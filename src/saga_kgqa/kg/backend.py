"""The endpoint protocol every store backend implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from saga_kgqa.kg.profiles import EndpointProfile
from saga_kgqa.kg.query import CheckedQuery
from saga_kgqa.kg.result import QueryResult


@dataclass(frozen=True, slots=True)
class ExecutionLimits:
    """Caps applied to one query execution.

    Attributes:
        deadline_s: Total wall-clock budget for the query, transfer included.
        max_rows: Rows kept; reading stops there and the result is marked truncated.
        max_bytes: Response bytes read from a remote endpoint before stopping.
    """

    deadline_s: float = 30.0
    max_rows: int = 10_000
    max_bytes: int = 16 * 1024 * 1024


@runtime_checkable
class KGBackend(Protocol):
    """A graph store that answers checked queries."""

    @property
    def endpoint_id(self) -> str:
        """A stable identifier of the store (used to key the record/replay cache)."""
        ...

    @property
    def profile(self) -> EndpointProfile:
        """The endpoint profile in force."""
        ...

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        """Run a checked query and return its typed result.

        Raises:
            BackendError: Any failure, as a member of the taxonomy in :mod:`saga_kgqa.errors`.
        """
        ...

    def close(self) -> None:
        """Release the store's resources."""
        ...

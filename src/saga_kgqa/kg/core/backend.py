"""The endpoint protocol every store backend implements."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.core.profiles import EndpointProfile
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.core.result import QueryResult

#: The longest query deadline accepted: a week (longer ones overflow the platform's timers).
MAX_DEADLINE_S = 7 * 24 * 3600.0


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

    def __post_init__(self) -> None:
        # inf, nan or 1e300 seconds would reach threading.Timer and time_t as an OverflowError.
        # Zero or less is allowed: an exhausted budget, which backends refuse at once.
        if not (math.isfinite(self.deadline_s) and self.deadline_s <= MAX_DEADLINE_S):
            raise ConfigurationError(
                f"a query deadline must be a finite number of seconds, at most {MAX_DEADLINE_S:g}, "
                f"got {self.deadline_s!r}"
            )
        if self.max_rows < 0 or self.max_bytes < 0:
            raise ConfigurationError(f"row and byte caps must not be negative, got {self.max_rows}, {self.max_bytes}")


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

"""Time as a dependency: an injectable clock and a total deadline built on it.

Every wait in the remote backend (``Retry-After``, breaker windows, deadlines) reads
this clock instead of :mod:`time`, so tests swap in a clock whose ``sleep`` returns at
once and a one-minute throttle wait costs no real time.
"""

from __future__ import annotations

import time
from typing import Protocol

from saga_kgqa.errors import QueryTimeout


class Clock(Protocol):
    """The time source of the remote backend."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes backwards (only differences are meaningful)."""
        ...

    def time(self) -> float:
        """Wall-clock seconds since the epoch (to read dates such as "banned until ...")."""
        ...

    def sleep(self, seconds: float) -> None:
        """Block the calling thread for ``seconds``."""
        ...


class SystemClock:
    """The real clock of the machine."""

    def monotonic(self) -> float:
        """Return :func:`time.monotonic`."""
        return time.monotonic()

    def time(self) -> float:
        """Return :func:`time.time`."""
        return time.time()

    def sleep(self, seconds: float) -> None:
        """Sleep for real."""
        if seconds > 0:
            time.sleep(seconds)


SYSTEM_CLOCK = SystemClock()


class Deadline:
    """A total wall-clock budget that starts when it is created.

    Attributes:
        total_s: The whole budget in seconds.
    """

    def __init__(self, clock: Clock, total_s: float) -> None:
        self._clock = clock
        self.total_s = total_s
        self._ends_at = clock.monotonic() + total_s

    def remaining(self) -> float:
        """Seconds left (negative once the deadline has passed)."""
        return self._ends_at - self._clock.monotonic()

    def expired(self) -> bool:
        """Whether the budget is spent."""
        return self.remaining() <= 0

    def cap(self, seconds: float) -> float:
        """The budget of one more query under this deadline: ``seconds``, or less when the deadline is nearer.

        Raises:
            QueryTimeout: The deadline has passed; nothing more may be sent.
        """
        left = self.remaining()
        if left <= 0:
            raise QueryTimeout(f"the deadline of {self.total_s:g} s has passed")
        return min(seconds, left)

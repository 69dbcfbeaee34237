"""A clock whose sleeps return at once, so Retry-After and breaker windows cost no real time."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class FakeClock:
    """Real time plus a virtual offset that ``sleep`` and ``advance`` move forward instantly.

    Following real time keeps real socket timeouts and the clock's deadlines in step,
    while every wait the code under test asks for is skipped and recorded.

    Attributes:
        sleeps: Every duration passed to :meth:`sleep`, in order.
        on_sleep: Called (in the sleeping thread) after each sleep has advanced the
            clock; a test can use it to act "during" the wait.
    """

    def __init__(self) -> None:
        self._offset = 0.0
        self._lock = threading.Lock()
        self.sleeps: list[float] = []
        self.on_sleep: Callable[[float], None] | None = None

    def monotonic(self) -> float:
        with self._lock:
            return time.monotonic() + self._offset

    def time(self) -> float:
        with self._lock:
            return time.time() + self._offset

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            self._offset += max(seconds, 0.0)
        if self.on_sleep is not None:
            self.on_sleep(seconds)

    def advance(self, seconds: float) -> None:
        """Move the clock forward without recording a sleep (time passing between calls)."""
        with self._lock:
            self._offset += seconds

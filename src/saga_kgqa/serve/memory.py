"""Give freed memory back to the system once a served face falls idle.

CPython and the C libraries under it free memory into glibc's heaps, which keep it: after a burst
of concurrent requests a server's resident memory stayed near its peak although the objects were
gone (bench/serve_load.py). :class:`IdleTrim` wraps a face's ASGI app and, when its last request in
flight ends, asks glibc to return free pages (``malloc_trim``), in a worker thread and at most once
per :data:`MIN_INTERVAL_S`. Elsewhere than glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
import time
from collections.abc import Callable

import anyio.to_thread

from saga_kgqa.serve.perimeter import ASGIApp, Receive, Scope, Send

#: Seconds between two trims at most (a trim of a few hundred MB takes milliseconds).
MIN_INTERVAL_S = 2.0


def _malloc_trim() -> Callable[[], object] | None:
    """The C library's ``malloc_trim(0)`` (glibc), or None where it has none."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: trim(0)


RELEASE = _malloc_trim()


def release_free_memory() -> bool:
    """Return the C heap's free pages to the system; False where that cannot be done."""
    if RELEASE is None:
        return False
    RELEASE()
    return True


class IdleTrim:
    """ASGI middleware: when the last request in flight ends, free memory goes back to the system."""

    def __init__(self, app: ASGIApp, *, min_interval_s: float = MIN_INTERVAL_S) -> None:
        """Wrap ``app``."""
        self.app = app
        self.min_interval_s = min_interval_s
        self.trims = 0
        self._in_flight = 0
        self._last = 0.0
        self._lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one call; trim after it when it was the last in flight."""
        if scope["type"] != "http" or RELEASE is None:
            await self.app(scope, receive, send)
            return
        with self._lock:
            self._in_flight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            with self._lock:
                self._in_flight -= 1
                now = time.monotonic()
                due = self._in_flight == 0 and now - self._last >= self.min_interval_s
                if due:
                    self._last = now
                    self.trims += 1
            if due:
                await anyio.to_thread.run_sync(release_free_memory)

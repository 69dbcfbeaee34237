"""A served face's memory after a burst: free pages given back when idle, worker threads bounded.

CPython and the C libraries under it free memory into glibc's heaps, which keep it: after a burst
of concurrent requests a server's resident memory stayed near its peak although the objects were
gone (bench/serve_load.py). :class:`IdleTrim` wraps a face's ASGI app and, when its last request in
flight ends, asks glibc to return free pages (``malloc_trim``), in a worker thread and at most once
per :data:`MIN_INTERVAL_S`. Elsewhere than glibc it does nothing.

What cannot be given back is what the burst's peak spread over CPython's 1 MiB arenas (a few
objects that outlive the burst keep a whole arena). So the peak itself is kept low:
:class:`WorkerThreads` bounds the event loop's default worker-thread pool (anyio's is 40), which
the MCP tools run their work in; calls beyond it wait for a thread instead of all running at once.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
import time
from collections.abc import Callable

import anyio.to_thread

from saga_kgqa.serve.perimeter import ASGIApp, Receive, Scope, Send, positive_setting

#: Seconds between two trims at most (a trim of a few hundred MB takes milliseconds).
MIN_INTERVAL_S = 2.0


#: The operator's number of worker threads for a face's blocking work (unset: :func:`worker_threads`'s rule).
WORKER_THREADS_ENV = "SAGA_WORKER_THREADS"


def worker_threads(cpus: int | None = None) -> int:
    """Worker threads a face runs blocking work in at once: ``$SAGA_WORKER_THREADS``, else four per core, 8 to 40.

    Work that holds the GIL (parsing, ranking, formatting) gains nothing from more threads than
    cores; more only buy waiting on remote endpoints at once. At 64 concurrent MCP sessions, 40
    threads left the server about 7 MB larger after the load than 8 (bench/serve_load.py, docs/faults.md AH17).
    The operator of a server whose clients wait on slow remote endpoints sets more: with 8, eight
    calls waiting on their endpoints' deadlines make every other call wait for a thread.

    Raises:
        ConfigurationError: ``$SAGA_WORKER_THREADS`` is not a positive whole number.
    """
    return positive_setting(WORKER_THREADS_ENV, max(8, min(40, 4 * (cpus or os.cpu_count() or 1))))


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


class WorkerThreads:
    """ASGI middleware: the event loop's default worker-thread pool holds ``threads`` at once.

    Set when the app first runs in its loop (the lifespan's start-up, or the first request), since
    anyio keeps one default pool per event loop. Work beyond it queues; nothing is refused.
    """

    def __init__(self, app: ASGIApp, threads: int) -> None:
        """Wrap ``app``; ``threads`` must be at least 1."""
        if threads < 1:
            raise ValueError("a worker-thread pool needs at least one thread")
        self.app = app
        self.threads = threads
        self._set = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Bound the loop's default pool (once), then serve the call."""
        if not self._set:
            anyio.to_thread.current_default_thread_limiter().total_tokens = self.threads
            self._set = True
        await self.app(scope, receive, send)

"""One long-lived watchdog thread that fires callbacks when request deadlines pass.

A ``threading.Timer`` per request starts (and waits for) a new thread every time:
on a loopback Virtuoso that was about a millisecond of a 9 ms query (bench/virtuoso_latency.py).
Here one daemon thread keeps a heap of pending deadlines and sleeps until the earliest;
:func:`watch` registers a callback for the duration of a ``with`` block and cancels it on
exit. The callback runs on the watchdog thread, so it must be quick and must not block
(the transport's only shuts a socket down).

The thread is started on first use, and again in a forked child (which starts with no
pending deadlines and a fresh lock).
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import math
import os
import threading
import time
from collections.abc import Callable, Iterator

#: Cancelled entries stay in the heap until their time; past this many entries they are dropped at once.
_COMPACT_AT = 4096


class _Entry:
    __slots__ = ("callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False


class _Watchdog:
    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._heap: list[tuple[float, int, _Entry]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None
        self._pid = -1
        #: When the thread will next look at the heap (``inf``: only when notified).
        self._wake_at = math.inf

    def add(self, seconds: float, callback: Callable[[], None]) -> _Entry:
        entry = _Entry(time.monotonic() + seconds, callback)
        with self._condition:
            self._ensure_thread()
            if len(self._heap) > _COMPACT_AT:
                self._heap = [item for item in self._heap if not item[2].cancelled]
                heapq.heapify(self._heap)
            heapq.heappush(self._heap, (entry.when, next(self._order), entry))
            # Waking the thread costs a context switch: only when it sleeps past this deadline.
            if entry.when < self._wake_at:
                self._wake_at = entry.when
                self._condition.notify()
        return entry

    def cancel(self, entry: _Entry) -> None:
        # Left in the heap, skipped when its time comes (or dropped when the heap is compacted):
        # removing it here would leave the thread sleeping until a deadline that is gone.
        entry.cancelled = True
        entry.callback = _nothing  # what it held (a request's socket) need not wait for its time

    def _ensure_thread(self) -> None:
        if self._thread is not None and self._pid == os.getpid() and self._thread.is_alive():
            return
        self._pid = os.getpid()
        self._thread = threading.Thread(target=self._run, name="saga-deadline-watchdog", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            with self._condition:
                while True:
                    while self._heap and self._heap[0][2].cancelled:
                        heapq.heappop(self._heap)
                    if not self._heap:
                        self._wake_at = math.inf
                        self._condition.wait()
                        continue
                    self._wake_at = self._heap[0][0]
                    delay = self._wake_at - time.monotonic()
                    if delay <= 0:
                        entry = heapq.heappop(self._heap)[2]
                        break
                    self._condition.wait(delay)
            if not entry.cancelled:
                with contextlib.suppress(Exception):  # a failing callback must not end the watchdog
                    entry.callback()

    def forget_after_fork(self) -> None:
        """In a forked child: no thread, and the parent's deadlines and lock (maybe held) are not its own."""
        self._condition = threading.Condition()
        self._heap = []
        self._thread = None
        self._wake_at = math.inf


def _nothing() -> None:
    return None


_WATCHDOG = _Watchdog()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_WATCHDOG.forget_after_fork)


@contextlib.contextmanager
def watch(seconds: float, callback: Callable[[], None]) -> Iterator[None]:
    """Call ``callback`` on the watchdog thread if the block is still running after ``seconds``.

    Args:
        seconds: Time from now until the deadline.
        callback: Quick, non-blocking action taken when the deadline passes.
    """
    entry = _WATCHDOG.add(seconds, callback)
    try:
        yield
    finally:
        _WATCHDOG.cancel(entry)

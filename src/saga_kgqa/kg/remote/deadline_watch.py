"""One long-lived watchdog thread that fires callbacks when request deadlines pass.

A ``threading.Timer`` per request starts (and waits for) a new thread every time:
on a loopback Virtuoso that was about a millisecond of a 9 ms query (bench/virtuoso_latency.py).
Here one daemon thread keeps a heap of pending deadlines and sleeps until the earliest;
:func:`watch` registers a callback for the duration of a ``with`` block and cancels it on
exit. The callback runs on the watchdog thread, so it must be quick and must not block
(the transport's only shuts a socket down).

The thread is started on first use, and again in a forked child, where it does not exist.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import os
import threading
import time
from collections.abc import Callable, Iterator


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

    def add(self, seconds: float, callback: Callable[[], None]) -> _Entry:
        entry = _Entry(time.monotonic() + seconds, callback)
        with self._condition:
            self._ensure_thread()
            heapq.heappush(self._heap, (entry.when, next(self._order), entry))
            if self._heap[0][2] is entry:
                self._condition.notify()  # an earlier deadline than the one being slept on
        return entry

    def cancel(self, entry: _Entry) -> None:
        # Left in the heap: popped (and skipped) when its time comes, or dropped below.
        with self._condition:
            entry.cancelled = True
            while self._heap and self._heap[0][2].cancelled:
                heapq.heappop(self._heap)

    def _ensure_thread(self) -> None:
        if self._thread is not None and self._pid == os.getpid() and self._thread.is_alive():
            return
        if self._pid != os.getpid():
            # A forked child inherits the heap but not the thread; the parent's entries are not its own.
            self._heap.clear()
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
                        self._condition.wait()
                        continue
                    delay = self._heap[0][0] - time.monotonic()
                    if delay <= 0:
                        entry = heapq.heappop(self._heap)[2]
                        break
                    self._condition.wait(delay)
            with contextlib.suppress(Exception):  # a failing callback must not end the watchdog
                entry.callback()


_WATCHDOG = _Watchdog()


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

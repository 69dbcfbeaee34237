"""What one client session has learnt: Θ per source and a step counter.

An MCP host calls tools one at a time; the type state Θ that a lookup or an executed
query adds to must reach the host's later calls in the same session (so a lookup's types
block a later, type-inconsistent execute), and must not leak into another session.
Sessions are keyed by the transport's session id and bounded in number.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from saga_kgqa.state import TypeState
from saga_kgqa.state.type_state import merge_type_state


@dataclass
class SessionState:
    """Θ per source name and the number of tool calls made so far."""

    theta: dict[str, TypeState] = field(default_factory=dict)
    steps: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def begin(self, source: str) -> tuple[TypeState, int]:
        """Θ of ``source`` and the number of this call (1-based)."""
        with self.lock:
            self.steps += 1
            return self.theta.get(source, TypeState()), self.steps

    def learn(self, source: str, delta: TypeState) -> int:
        """Merge what a call found into Θ of ``source``; return how many resources Θ now tracks."""
        with self.lock:
            merged = merge_type_state(self.theta.get(source), delta)
            self.theta[source] = merged
            return len(merged)


class SessionStore:
    """Session state by session key, the least recently used dropped beyond ``capacity``.

    The key is the transport's session id (streamable HTTP's ``mcp-session-id``), or one
    fixed key for the one client of a stdio server. A 2026-07-28 request carries no session:
    it gets a fresh state of its own (the protocol is stateless there). A session's state goes when
    the transport says the session ended (:meth:`forget`), or once unused for ``idle_s``.
    """

    def __init__(self, capacity: int = 20_000, idle_s: float = 300.0) -> None:
        """Keep at most ``capacity`` sessions, none unused for more than ``idle_s`` seconds."""
        self._states: OrderedDict[str, SessionState] = OrderedDict()
        self._used: dict[str, float] = {}
        self._capacity = capacity
        self._idle_s = idle_s
        self._lock = threading.Lock()

    def forget(self, key: str) -> None:
        """Drop the state of session ``key`` (it was closed or expired)."""
        with self._lock:
            self._states.pop(key, None)
            self._used.pop(key, None)

    def get(self, key: str | None) -> SessionState:
        """The state of session ``key`` (a fresh one on its first call; a throwaway one for ``None``)."""
        if key is None:
            return SessionState()
        now = time.monotonic()
        with self._lock:
            found = self._states.get(key)
            if found is None:
                found = self._states[key] = SessionState()
            else:
                self._states.move_to_end(key)
            self._used[key] = now
            while len(self._states) > self._capacity or self._used[next(iter(self._states))] < now - self._idle_s:
                oldest, _ = self._states.popitem(last=False)
                del self._used[oldest]
            return found

    def __len__(self) -> int:
        """Sessions held."""
        with self._lock:
            return len(self._states)

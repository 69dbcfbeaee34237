"""What one client session has learnt: Θ per source and a step counter.

An MCP host calls tools one at a time; the type state Θ that a lookup or an executed
query adds to must reach the host's later calls in the same session (so a lookup's types
block a later, type-inconsistent execute), and must not leak into another session.
Sessions are held weakly: a closed session's state goes with it.
"""

from __future__ import annotations

import threading
import weakref
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
    """Session state keyed by the transport's session object (weakly)."""

    def __init__(self) -> None:
        """Start with no sessions."""
        self._states: weakref.WeakKeyDictionary[object, SessionState] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, session: object) -> SessionState:
        """The state of ``session`` (a fresh one on its first call)."""
        with self._lock:
            found = self._states.get(session)
            if found is None:
                found = SessionState()
                self._states[session] = found
            return found

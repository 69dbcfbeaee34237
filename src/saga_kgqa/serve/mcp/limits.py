"""Bounds on what MCP clients can hold: sessions (HTTP) and concurrent calls (every transport).

Every budget is keyed by what a client cannot mint (issue 38): the session id the server issued
(the SDK answers any other id 404), the TCP connection (peer address and port, given by the
kernel), and the peer address; never by a header the client chooses (an unverified
``Authorization`` bought a fresh budget per value).

* :class:`~saga_kgqa.serve.mcp.session_cap.SessionCap` (its own module) bounds HTTP sessions per
  connection, per address and in how fast an address adds them; :class:`HttpLimits` holds its options.
* :class:`CallGate` bounds concurrent tool calls: at most ``per_session`` in flight per
  caller (:func:`caller_key`: a session, or a connection on the stateless protocol, so
  independent stateless clients get independent budgets) and ``runs`` whole-agent runs per
  server. Beyond that a call answers at once with a "busy" tool error and a retry hint instead
  of queuing on the worker threads, where one client's slow calls made everyone else's cheap
  ones wait. The perimeter caps each address's calls in flight on top.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS


@dataclass(frozen=True)
class HttpLimits:
    """Limits of the HTTP face.

    Attributes:
        session_idle_s: Seconds without a request after which a session is closed.
        sessions_per_client: Sessions one connection may have opened; one more closes its least recently used.
        sessions_per_address: Sessions of one peer address; beyond it new ones are refused, none closed (a
            quarter of it may be opened at once, then half of it per idle period: a flood cannot reach it).
        handshake_s: Seconds a session may go without any request after the ``initialize`` that opened it.
    """

    session_idle_s: float = 300.0
    sessions_per_client: int = 64
    sessions_per_address: int = 1024
    handshake_s: float = 10.0


def caller_key(request: object | None) -> str:
    """Whose call this is, by what the client cannot mint: its HTTP session, else its connection, else stdio.

    A session id counts only on the session protocol (2025-11-25), where the SDK answers an id it did
    not issue with 404 before any tool runs; a 2026-07-28 request is stateless, so a session id it
    carries is the client's own invention and is ignored: the request's TCP connection (peer address
    and port) keys it. The one client of a stdio server is ``stdio``.
    """
    headers = getattr(request, "headers", None)
    if headers is None:
        return "stdio"
    version = headers.get("mcp-protocol-version")
    session = headers.get("mcp-session-id")
    if session and (version is None or version in HANDSHAKE_PROTOCOL_VERSIONS):
        return f"session {session}"
    client = getattr(request, "client", None)
    return f"connection {getattr(client, 'host', '?')}:{getattr(client, 'port', '?')}"


class CallGate:
    """Bounds concurrent calls per session and whole-agent runs per server; refuses beyond them at once."""

    def __init__(self, *, per_session: int = 8, runs: int = 4, retry_after_s: float = 5.0) -> None:
        """Allow ``per_session`` calls in flight per session and ``runs`` agent runs per server."""
        self.per_session = per_session
        self.runs = runs
        self.retry_after_s = retry_after_s
        self._in_flight: dict[str, int] = {}
        self._running = 0
        self._lock = threading.Lock()

    @contextmanager
    def call(self, key: str, *, run: bool = False) -> Iterator[None]:
        """Hold a slot for one call of the caller ``key`` (and a run slot when ``run``).

        Raises:
            ToolError: The session (or, for a run, the server) is at its limit: busy, with a retry hint.
        """
        with self._lock:
            if self._in_flight.get(key, 0) >= self.per_session:
                raise ToolError(self._busy(f"this session already has {self.per_session} calls in flight"))
            if run and self._running >= self.runs:
                raise ToolError(self._busy(f"the server is already running {self.runs} questions"))
            self._in_flight[key] = self._in_flight.get(key, 0) + 1
            self._running += run
        try:
            yield
        finally:
            with self._lock:
                left = self._in_flight[key] - 1
                if left:
                    self._in_flight[key] = left
                else:
                    del self._in_flight[key]
                self._running -= run

    def _busy(self, why: str) -> str:
        return f"busy: {why}. Hint: retry after {self.retry_after_s:g} s, or wait for your earlier calls to finish."

"""Bounds on what MCP clients can hold: sessions per client (HTTP) and concurrent calls (every transport).

* :class:`SessionCap` wraps the SDK's streamable-HTTP app. Idle sessions already expire
  (the SDK's ``session_idle_timeout``, set in minutes by ``saga mcp``); on top, one client
  (peer address plus credential) holds at most ``per_client`` sessions: opening one more
  closes that client's least recently used session, through the protocol's own ``DELETE``.
  So a client that opens and abandons thousands of sessions churns its own slots and never
  fills the SDK's global table (whose overflow answers every new client 503).
* :class:`CallGate` bounds concurrent tool calls: at most ``per_session`` in flight per
  session and ``runs`` whole-agent runs per server. Beyond that a call answers at once with
  a "busy" tool error and a retry hint instead of queuing on the worker threads, where one
  client's slow calls made everyone else's cheap ones wait.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SESSION_HEADER = b"mcp-session-id"

#: Request headers a synthetic close carries over, so it passes the same checks as the client's own.
_KEPT_HEADERS = frozenset({b"host", b"origin", b"authorization", b"mcp-protocol-version"})


@dataclass(frozen=True)
class HttpLimits:
    """Limits of the HTTP face.

    Attributes:
        session_idle_s: Seconds without a request after which a session is closed.
        sessions_per_client: Sessions one client may hold; one more closes its least recently used.
    """

    session_idle_s: float = 300.0
    sessions_per_client: int = 64


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


def client_key(scope: Scope) -> str:
    """Who a request comes from: its peer address and the credential it presents (if any)."""
    peer = scope.get("client") or ("?", 0)
    auth = next((v for k, v in scope.get("headers", []) if k == b"authorization"), b"")
    return f"{peer[0]}|{hash(auth)}"


class SessionCap:
    """ASGI middleware: each client holds at most ``per_client`` MCP sessions (the oldest-used is closed)."""

    def __init__(self, app: ASGIApp, *, per_client: int) -> None:
        """Wrap ``app`` (the SDK's streamable-HTTP app)."""
        if per_client < 1:
            raise ValueError("per_client must be at least 1")
        self.app = app
        self.per_client = per_client
        # client -> session id -> last use (monotonic), least recently used first.
        self._sessions: dict[str, OrderedDict[str, float]] = {}
        self._lock = threading.Lock()

    def held(self, key: str) -> int:
        """How many sessions the client ``key`` holds (as this middleware saw them opened)."""
        with self._lock:
            return len(self._sessions.get(key, ()))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI call, noting sessions opened, used and closed."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        key = client_key(scope)
        session = next((v.decode("latin-1") for k, v in scope["headers"] if k == SESSION_HEADER), None)
        if session is not None:
            self._touch(key, session, closing=scope["method"] == "DELETE")
            await self.app(scope, receive, send)
            return
        opened: list[str] = []

        async def noting_send(message: Message) -> None:
            if message["type"] == "http.response.start" and message.get("status", 500) < 400:
                opened.extend(v.decode("latin-1") for k, v in message.get("headers", []) if k == SESSION_HEADER)
            await send(message)

        await self.app(scope, receive, noting_send)
        for new in opened:
            for old in self._admit(key, new):
                await self._close(scope, old)

    def _touch(self, key: str, session: str, *, closing: bool) -> None:
        with self._lock:
            held = self._sessions.get(key)
            if held is None or session not in held:
                return
            if closing:
                del held[session]
            else:
                held[session] = time.monotonic()
                held.move_to_end(session)

    def _admit(self, key: str, session: str) -> list[str]:
        """Record a new session; return the ones to close so the client stays within its cap."""
        with self._lock:
            held = self._sessions.setdefault(key, OrderedDict())
            held[session] = time.monotonic()
            evicted: list[str] = []
            while len(held) > self.per_client:
                evicted.append(held.popitem(last=False)[0])
            return evicted

    async def _close(self, scope: Scope, session: str) -> None:
        """Close ``session`` as its client would: a ``DELETE`` with its id (answered 404 if already expired)."""
        headers = [(k, v) for k, v in scope["headers"] if k in _KEPT_HEADERS]
        headers.append((SESSION_HEADER, session.encode("latin-1")))
        close_scope = {**scope, "method": "DELETE", "headers": headers, "query_string": b""}
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: Message) -> None:
            return None

        await self.app(close_scope, receive, discard)


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

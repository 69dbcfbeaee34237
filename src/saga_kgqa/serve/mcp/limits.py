"""Bounds on what MCP clients can hold: sessions (HTTP) and concurrent calls (every transport).

Every budget is keyed by what a client cannot mint (issue 38): the session id the server issued
(the SDK answers any other id 404), the TCP connection (peer address and port, given by the
kernel), and the peer address; never by a header the client chooses (an unverified
``Authorization`` bought a fresh budget per value).

* :class:`SessionCap` wraps the SDK's streamable-HTTP app. Idle sessions already expire
  (the SDK's ``session_idle_timeout``, set in minutes by ``saga mcp``); on top, the sessions
  opened on one connection are at most ``per_connection``: one more closes that connection's
  own least recently used session, through the protocol's own ``DELETE``. So a client that
  opens and abandons thousands of sessions churns its own slots. All the sessions of one
  address are at most ``per_address``: beyond it a new session is refused (503 with
  ``Retry-After``), and nobody's session is closed to make room. No client closes or evicts
  another's session.
* :class:`CallGate` bounds concurrent tool calls: at most ``per_session`` in flight per
  caller (:func:`caller_key`: a session, or a connection on the stateless protocol, so
  independent stateless clients get independent budgets) and ``runs`` whole-agent runs per
  server. Beyond that a call answers at once with a "busy" tool error and a retry hint instead
  of queuing on the worker threads, where one client's slow calls made everyone else's cheap
  ones wait. The perimeter caps each address's calls in flight on top.
"""

from __future__ import annotations

import json
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
#: Seconds a refused new session is told to wait.
SESSION_RETRY_AFTER_S = 30


@dataclass(frozen=True)
class HttpLimits:
    """Limits of the HTTP face.

    Attributes:
        session_idle_s: Seconds without a request after which a session is closed.
        sessions_per_client: Sessions one connection may have opened; one more closes its least recently used.
        sessions_per_address: Sessions of one peer address; beyond it new ones are refused, none closed.
    """

    session_idle_s: float = 300.0
    sessions_per_client: int = 64
    sessions_per_address: int = 1024


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


def connection_key(scope: Scope) -> tuple[str, str]:
    """The connection a request came on (peer address and port) and its address."""
    peer = scope.get("client") or ("?", 0)
    return f"{peer[0]}:{peer[1]}", str(peer[0])


@dataclass
class _Held:
    """One session as the cap saw it opened: its connection, its address, its last use."""

    connection: str
    address: str
    used: float


class SessionCap:
    """ASGI middleware: sessions bounded per connection (the oldest of its own closed) and per address (refused)."""

    def __init__(self, app: ASGIApp, *, per_client: int, per_address: int = 1024, idle_s: float | None = None) -> None:
        """Wrap ``app`` (the SDK's streamable-HTTP app); ``idle_s``: when the SDK expires an unused session."""
        if per_client < 1 or per_address < 1:
            raise ValueError("per_client and per_address must be at least 1")
        self.app = app
        self.per_client = per_client
        self.per_address = per_address
        self.idle_s = idle_s
        self._sessions: dict[str, _Held] = {}  # session id -> who opened it
        self._by_connection: dict[str, OrderedDict[str, None]] = {}  # least recently used first
        self._by_address: dict[str, int] = {}
        self._lock = threading.Lock()

    def held(self, connection: str) -> int:
        """How many sessions the connection ``host:port`` opened that are still open (as this middleware saw)."""
        with self._lock:
            return len(self._by_connection.get(connection, ()))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI call, noting sessions opened, used and closed."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        connection, address = connection_key(scope)
        session = next((v.decode("latin-1") for k, v in scope["headers"] if k == SESSION_HEADER), None)
        if session is not None:
            self._touch(session)
            gone: list[bool] = []

            async def noting_end(message: Message) -> None:
                if message["type"] == "http.response.start" and message.get("status") == 404:
                    gone.append(True)  # expired or closed: the SDK no longer knows it
                await send(message)

            await self.app(scope, receive, noting_end)
            if gone or scope["method"] == "DELETE":
                self._forget(session)
            return
        version = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"mcp-protocol-version"), None)
        opens = scope["method"] == "POST" and (version is None or version in HANDSHAKE_PROTOCOL_VERSIONS)
        if opens and self._address_full(address):  # a stateless (2026-07-28) request opens no session
            await _refuse(send, self.per_address)
            return
        opened: list[str] = []

        async def noting_send(message: Message) -> None:
            if message["type"] == "http.response.start" and message.get("status", 500) < 400:
                opened.extend(v.decode("latin-1") for k, v in message.get("headers", []) if k == SESSION_HEADER)
            await send(message)

        await self.app(scope, receive, noting_send)
        for new in opened:
            for old in self._admit(connection, address, new):
                await self._close(scope, old)

    def _touch(self, session: str) -> None:
        with self._lock:
            held = self._sessions.get(session)
            if held is not None:
                held.used = time.monotonic()
                self._by_connection[held.connection].move_to_end(session)

    def _forget(self, session: str) -> None:
        with self._lock:
            self._drop(session)

    def _drop(self, session: str) -> None:
        held = self._sessions.pop(session, None)
        if held is None:
            return
        own = self._by_connection.get(held.connection)
        if own is not None:
            own.pop(session, None)
            if not own:
                del self._by_connection[held.connection]
        left = self._by_address.get(held.address, 0) - 1
        if left > 0:
            self._by_address[held.address] = left
        else:
            self._by_address.pop(held.address, None)

    def _address_full(self, address: str) -> bool:
        with self._lock:
            if self._by_address.get(address, 0) < self.per_address:
                return False
            if self.idle_s is not None:  # the SDK expired these without a request this middleware saw
                cutoff = time.monotonic() - self.idle_s
                for session in [s for s, h in self._sessions.items() if h.address == address and h.used < cutoff]:
                    self._drop(session)
            return self._by_address.get(address, 0) >= self.per_address

    def _admit(self, connection: str, address: str, session: str) -> list[str]:
        """Record a new session; return the connection's own ones to close so it stays within its cap."""
        with self._lock:
            self._sessions[session] = _Held(connection, address, time.monotonic())
            own = self._by_connection.setdefault(connection, OrderedDict())
            own[session] = None
            self._by_address[address] = self._by_address.get(address, 0) + 1
            evicted = list(own)[: max(0, len(own) - self.per_client)]
            for old in evicted:
                self._drop(old)
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


async def _refuse(send: Send, cap: int) -> None:
    """503 for a new session beyond the address's cap: a JSON-RPC error with the reason and ``Retry-After``."""
    message = (
        f"too many open sessions from this address ({cap}); retry after {SESSION_RETRY_AFTER_S} s, "
        "or close sessions you no longer use (DELETE)"
    )
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": message}}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(SESSION_RETRY_AFTER_S).encode()),
    ]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body})


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

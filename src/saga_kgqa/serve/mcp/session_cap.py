"""MCP sessions of the HTTP face, bounded by what a client cannot mint (issue 38).

:class:`SessionCap` wraps the SDK's streamable-HTTP app. Its keys are the session id the server
issued (the SDK answers any other id 404), the TCP connection (peer address and port, given by the
kernel) and the peer address; never a header the client chooses (an unverified ``Authorization``
bought a fresh budget per value). The rules, none of which lets a client close another's live
session:

* **Per connection** at most ``per_client`` sessions: one more closes that connection's own least
  recently used (the protocol's own ``DELETE``), so a client that opens and abandons thousands on
  one connection churns its own slots. Such a replacement adds nothing to the address's count.
* **New sessions per address** come from a token bucket: ``burst`` at once (a quarter of the
  address's cap), then ``rate`` a second, chosen so that a flood of sessions its client then
  abandons holds at most ``burst + rate * idle`` = three quarters of the cap: the cap is never
  reached by sessions nobody uses, even when each comes on a fresh connection (on loopback every
  local process shares one address, so no other key separates a flooder). A session its client
  closes (``DELETE``) gives its token back; one that expires does not. Beyond the bucket a new
  session gets 503 with ``Retry-After`` (about a second), so the next local client is served within
  a second of a flood's end, not after the idle expiry.
* **Sessions that never got past initialize** (no request after the ``initialize`` that opened them,
  not even the client's ``notifications/initialized``) are closed after ``handshake_s`` (10 s): a
  flood of bare ``initialize`` posts leaves within seconds. Every SDK client sends its
  ``initialized`` notification at once.
* **Per address** at most ``per_address`` sessions, beyond which a new one is refused (503), nobody's
  closed: it bounds the sessions local clients keep alive on purpose.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SESSION_HEADER = b"mcp-session-id"

#: Request headers a synthetic close carries over, so it passes the same checks as the client's own.
_KEPT_HEADERS = frozenset({b"host", b"origin", b"authorization", b"mcp-protocol-version"})
#: Seconds a new session refused because the address holds its cap is told to wait.
SESSION_RETRY_AFTER_S = 30
#: Seconds a session may stay without any request after its ``initialize``.
HANDSHAKE_S = 10.0
#: Unfinished handshakes closed per new session at most (the rest at the next one), so no request waits long.
_CLOSES_PER_REQUEST = 32


def connection_key(scope: Scope) -> tuple[str, str]:
    """The connection a request came on (peer address and port) and its address."""
    peer = scope.get("client") or ("?", 0)
    return f"{peer[0]}:{peer[1]}", str(peer[0])


@dataclass
class _Held:
    """One session as the cap saw it opened: its connection, address, last use and opening headers."""

    connection: str
    address: str
    used: float
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)


@dataclass
class _Bucket:
    """New-session tokens of one address."""

    tokens: float
    stamp: float


class SessionCap:
    """ASGI middleware: sessions bounded per connection, per address and in how fast an address adds them."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        per_client: int,
        per_address: int = 1024,
        idle_s: float | None = None,
        handshake_s: float = HANDSHAKE_S,
        on_end: Callable[[str], None] | None = None,
    ) -> None:
        """Wrap ``app`` (the SDK's streamable-HTTP app).

        Args:
            app: The SDK's app.
            per_client: Sessions one connection may have opened (its own oldest closed beyond).
            per_address: Sessions of one peer address (new ones refused beyond).
            idle_s: When the SDK expires an unused session (300 s if not given, for the bucket's rate).
            handshake_s: Seconds a session may go without any request after its ``initialize``.
            on_end: Called with a session's id once it ended (closed, expired, replaced), to drop its state.
        """
        if per_client < 1 or per_address < 1:
            raise ValueError("per_client and per_address must be at least 1")
        self.app = app
        self.per_client = per_client
        self.per_address = per_address
        self.idle_s = idle_s
        self.handshake_s = handshake_s
        self.on_end = on_end
        self.burst = max(1, per_address // 4)
        self.rate = per_address / (2 * (idle_s or 300.0))  # burst + rate * idle = 3/4 of the cap
        self._sessions: dict[str, _Held] = {}  # session id -> who opened it
        self._by_connection: dict[str, OrderedDict[str, None]] = {}  # least recently used first
        self._by_address: dict[str, int] = {}
        self._buckets: dict[str, _Bucket] = {}
        self._unfinished: OrderedDict[str, float] = OrderedDict()  # opened, no request since: oldest first
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
            await self._serve_session(scope, receive, send, session)
            return
        version = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"mcp-protocol-version"), None)
        if scope["method"] != "POST" or (version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS):
            await self.app(scope, receive, send)  # a stateless (2026-07-28) request opens no session
            return
        for old in self._unfinished_handshakes():
            await self._close(scope, *old)
        refused, took = self._take(connection, address)
        if refused is not None:
            await _refuse(send, *refused)
            return
        opened: list[str] = []

        async def noting_send(message: Message) -> None:
            if message["type"] == "http.response.start" and message.get("status", 500) < 400:
                opened.extend(v.decode("latin-1") for k, v in message.get("headers", []) if k == SESSION_HEADER)
            await send(message)

        try:
            await self.app(scope, receive, noting_send)
        finally:
            kept = [(k, v) for k, v in scope["headers"] if k in _KEPT_HEADERS]
            evicted = self._admit(connection, address, opened[0] if opened else None, kept, took=took)
        for old in evicted:
            await self._close(scope, *old)

    async def _serve_session(self, scope: Scope, receive: Receive, send: Send, session: str) -> None:
        """A request of a session: it is past its handshake; a close or a 404 ends it here too."""
        self._touch(session)
        gone: list[bool] = []
        closed: list[bool] = []

        async def noting_end(message: Message) -> None:
            if message["type"] == "http.response.start":
                status = message.get("status", 500)
                gone.append(status == 404)  # expired or closed: the SDK no longer knows it
                closed.append(scope["method"] == "DELETE" and status < 400)
            await send(message)

        await self.app(scope, receive, noting_end)
        if any(gone) or scope["method"] == "DELETE":
            self._forget(session, refund=any(closed))

    def _take(self, connection: str, address: str) -> tuple[tuple[str, int] | None, bool]:
        """Take a new-session token of ``address``: (why not and how long to wait, or None; whether one was taken).

        None is taken when the connection holds its cap: its own oldest makes room, the address holds no more.
        """
        with self._lock:
            if len(self._by_connection.get(connection, ())) >= self.per_client:
                return None, False
            if self._address_full(address):
                why = (
                    f"too many open sessions from this address ({self.per_address}); retry after "
                    f"{SESSION_RETRY_AFTER_S} s, or close sessions you no longer use (DELETE)"
                )
                return (why, SESSION_RETRY_AFTER_S), False
            now = time.monotonic()
            bucket = self._buckets.setdefault(address, _Bucket(float(self.burst), now))
            bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.stamp) * self.rate)
            bucket.stamp = now
            if bucket.tokens < 1.0:
                wait = max(1, math.ceil((1.0 - bucket.tokens) / self.rate))
                why = (
                    f"too many new sessions from this address just now ({self.burst} at once, then "
                    f"{self.rate * 60:.0f} a minute); retry after {wait} s, or reuse the sessions you have"
                )
                return (why, wait), False
            bucket.tokens -= 1.0
            return None, True

    def _refund(self, address: str) -> None:
        bucket = self._buckets.get(address)
        if bucket is not None:
            bucket.tokens = min(float(self.burst), bucket.tokens + 1.0)

    def _touch(self, session: str) -> None:
        with self._lock:
            held = self._sessions.get(session)
            if held is not None:
                held.used = time.monotonic()
                self._by_connection[held.connection].move_to_end(session)
                self._unfinished.pop(session, None)

    def _forget(self, session: str, *, refund: bool) -> None:
        with self._lock:
            held = self._drop(session)
            if held is not None and refund:  # its client closed it: the address holds one fewer for good
                self._refund(held.address)

    def _drop(self, session: str) -> _Held | None:
        if self.on_end is not None:
            self.on_end(session)
        held = self._sessions.pop(session, None)
        self._unfinished.pop(session, None)
        if held is None:
            return None
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
        return held

    def _address_full(self, address: str) -> bool:
        """Whether ``address`` holds its cap (call with the lock held)."""
        if self._by_address.get(address, 0) < self.per_address:
            return False
        if self.idle_s is not None:  # the SDK expired these without a request this middleware saw
            cutoff = time.monotonic() - self.idle_s
            for session in [s for s, h in self._sessions.items() if h.address == address and h.used < cutoff]:
                self._drop(session)
        return self._by_address.get(address, 0) >= self.per_address

    def _unfinished_handshakes(self) -> list[tuple[str, list[tuple[bytes, bytes]]]]:
        """Sessions without any request since their ``initialize`` for ``handshake_s``, dropped: to close."""
        cutoff = time.monotonic() - self.handshake_s
        found: list[tuple[str, list[tuple[bytes, bytes]]]] = []
        with self._lock:
            while self._unfinished and len(found) < _CLOSES_PER_REQUEST:
                session, opened = next(iter(self._unfinished.items()))
                if opened > cutoff:
                    break
                held = self._drop(session)
                if held is not None:
                    found.append((session, held.headers))
        return found

    def _admit(
        self, connection: str, address: str, session: str | None, headers: list[tuple[bytes, bytes]], *, took: bool
    ) -> list[tuple[str, list[tuple[bytes, bytes]]]]:
        """Record a new session (or give its token back when none opened); the connection's own ones to close."""
        with self._lock:
            if session is None:
                if took:
                    self._refund(address)  # refused or failed: it holds nothing
                return []
            now = time.monotonic()
            self._sessions[session] = _Held(connection, address, now, headers)
            self._unfinished[session] = now
            own = self._by_connection.setdefault(connection, OrderedDict())
            own[session] = None
            self._by_address[address] = self._by_address.get(address, 0) + 1
            evicted = list(own)[: max(0, len(own) - self.per_client)]
            out = []
            for old in evicted:
                held = self._drop(old)
                out.append((old, held.headers if held is not None else headers))
            return out

    async def _close(self, scope: Scope, session: str, headers: list[tuple[bytes, bytes]]) -> None:
        """Close ``session`` as its client would: a ``DELETE`` with its id (answered 404 if already expired)."""
        close_scope = {
            **scope,
            "method": "DELETE",
            "headers": [*headers, (SESSION_HEADER, session.encode("latin-1"))],
            "query_string": b"",
        }
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


async def _refuse(send: Send, message: str, retry_after_s: int) -> None:
    """503 for a new session the address may not open now: a JSON-RPC error with the reason and ``Retry-After``."""
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": message}}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(retry_after_s).encode()),
    ]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body})

"""The MCP session cap's rules against a stand-in for the SDK's app (the real server: tests/integration/serve)."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from saga_kgqa.serve.mcp.session_cap import SessionCap

INIT_HEADERS = [(b"host", b"127.0.0.1:1"), (b"content-type", b"application/json")]


class FakeSdk:
    """Issues a session id on each POST without one, knows its sessions, answers DELETE and unknown ids 404."""

    def __init__(self) -> None:
        self.sessions: set[str] = set()
        self.closed: list[str] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        session = next((v.decode() for k, v in scope["headers"] if k == b"mcp-session-id"), None)
        headers: list[tuple[bytes, bytes]] = []
        if session is None:
            session = uuid.uuid4().hex
            self.sessions.add(session)
            headers.append((b"mcp-session-id", session.encode()))
            status = 200
        elif session not in self.sessions:
            status = 404
        elif scope["method"] == "DELETE":
            self.sessions.discard(session)
            self.closed.append(session)
            status = 200
        else:
            status = 200
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"{}"})


async def _request(
    cap: SessionCap, method: str = "POST", session: str | None = None, port: int = 1000
) -> tuple[int, dict[bytes, bytes]]:
    headers = list(INIT_HEADERS)
    if session is not None:
        headers.append((b"mcp-session-id", session.encode()))
    scope = {"type": "http", "method": method, "headers": headers, "client": ("127.0.0.1", port), "path": "/mcp"}
    scope["query_string"] = b""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await cap(scope, receive, send)
    return sent[0]["status"], dict(sent[0].get("headers", []))


def _open(cap: SessionCap, port: int) -> tuple[int, str | None, dict[bytes, bytes]]:
    status, headers = asyncio.run(_request(cap, port=port))
    found = headers.get(b"mcp-session-id")
    return status, found.decode() if found else None, headers


def test_an_address_opens_a_quarter_of_its_cap_at_once_then_waits_and_a_close_gives_the_slot_back() -> None:
    sdk = FakeSdk()
    cap = SessionCap(sdk, per_client=8, per_address=40, idle_s=600)  # 10 at once, then 40 per 20 minutes
    opened = [_open(cap, port) for port in range(2000, 2012)]  # a fresh connection each
    assert [status for status, _, _ in opened] == [200] * 10 + [503] * 2
    refused = opened[-1][2]
    assert int(refused[b"retry-after"]) >= 1
    # A session its client closes gives its place back; one left to expire does not.
    first = opened[0][1]
    assert asyncio.run(_request(cap, "DELETE", first, port=2000))[0] == 200
    assert _open(cap, 3000)[0] == 200
    assert _open(cap, 3001)[0] == 503
    # Nobody's session was closed to make room.
    assert sdk.closed == [first]


def test_a_connection_at_its_own_cap_replaces_its_oldest_without_spending_the_addresss_budget() -> None:
    sdk = FakeSdk()
    cap = SessionCap(sdk, per_client=4, per_address=40, idle_s=600)
    victim = _open(cap, 1)[1]
    own = [_open(cap, 2)[1] for _ in range(30)]  # one connection: 4 from the budget, then it churns its own
    assert all(session is not None for session in own)
    assert cap.held("127.0.0.1:2") == 4
    assert victim in sdk.sessions and set(sdk.closed) == set(own[:26])


def test_a_session_without_any_request_after_initialize_is_closed_after_the_handshake_window() -> None:
    sdk = FakeSdk()
    cap = SessionCap(sdk, per_client=8, per_address=400, idle_s=600, handshake_s=0.2)
    bare = _open(cap, 1)[1]
    used = _open(cap, 2)[1]
    assert bare is not None and used is not None
    assert asyncio.run(_request(cap, "POST", used, port=2))[0] == 200  # notifications/initialized, say
    time.sleep(0.3)
    _open(cap, 3)  # the next new session sweeps the unfinished ones
    assert sdk.closed == [bare]
    assert used in sdk.sessions
    assert asyncio.run(_request(cap, "POST", bare, port=1))[0] == 404


def test_the_address_cap_refuses_new_sessions_and_closes_none() -> None:
    sdk = FakeSdk()
    cap = SessionCap(sdk, per_client=8, per_address=4, idle_s=600)
    cap.burst = 100  # the bucket out of the way: the cap itself
    cap._buckets.clear()
    kept = [_open(cap, port)[1] for port in range(4)]
    status, _, headers = _open(cap, 99)
    assert status == 503 and headers[b"retry-after"] == b"30"
    assert sdk.closed == [] and set(kept) <= sdk.sessions

"""A session flood from one address on fresh TCP connections must not lock out the next local client (issue 38).

The red team's reproduction: one local process opened about 10,000 sessions in under a minute,
then every new local client got 503 until the idle expiry (300 s). Loopback clients share one
address and a flooder can open a new connection per session, so neither key separates them; the
face bounds how fast one address can add sessions it then holds (a flood cannot reach the
address's cap within one idle window) and never closes anyone's live session to make room.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
import time
from urllib.parse import urlsplit

import httpx

from tests.support.mcp_servers import http_server

EX = "PREFIX ex: <http://example.org/space/> "
QUERY = EX + "SELECT ?m WHERE { ?m ex:crewMember ?a } LIMIT 1"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "flood", "version": "0"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
#: The address's cap the server runs with here, and the idle expiry (one minute).
PER_ADDRESS = 120
FLOOD_THREADS = 8
FLOOD_ATTEMPTS = 480  # four times the cap, the flood's upper bound in count
FLOOD_SECONDS = 8.0  # and in time


def _one_session(host: str, port: int, path: str, minted: int) -> tuple[int, str]:
    """Open one session on a fresh connection, complete the handshake, abandon it; (status, retry-after)."""
    conn = http.client.HTTPConnection(host, port, timeout=30)
    try:
        headers = {**HEADERS, "authorization": f"Bearer minted-{minted}"}  # a fresh "credential" each time
        conn.request("POST", path, json.dumps(INIT), headers)
        reply = conn.getresponse()
        reply.read()
        session = reply.getheader("mcp-session-id")
        if reply.status == 200 and session:
            conn.request("POST", path, json.dumps(INITIALIZED), {**headers, "mcp-session-id": session})
            conn.getresponse().read()  # past initialize: the session counts as in use
        return reply.status, reply.getheader("retry-after") or ""
    finally:
        conn.close()


def _flood(url: str) -> tuple[dict[int, int], set[str], float]:
    """FLOOD_THREADS threads, a fresh connection per session, bounded by count and time."""
    parts = urlsplit(url)
    statuses: dict[int, int] = {}
    retry_after: set[str] = set()
    lock = threading.Lock()
    counter = iter(range(FLOOD_ATTEMPTS))
    started = time.monotonic()

    def worker() -> None:
        while time.monotonic() - started < FLOOD_SECONDS:
            with lock:
                minted = next(counter, None)
            if minted is None:
                return
            status, after = _one_session(parts.hostname or "127.0.0.1", parts.port or 80, parts.path, minted)
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                if status == 503:
                    retry_after.add(after)

    threads = [threading.Thread(target=worker) for _ in range(FLOOD_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return statuses, retry_after, time.monotonic() - started


def _reply(response: httpx.Response) -> dict[str, object]:
    """The JSON-RPC reply of a POST, sent as JSON or as one server-sent event."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
        reply: dict[str, object] = json.loads(data[-1])
        return reply
    found: dict[str, object] = response.json()
    return found


async def _served_within(url: str, seconds: float) -> float:
    """Seconds until a new client's session answers a call (retrying a 503 after its Retry-After)."""
    started = time.monotonic()
    async with httpx.AsyncClient(timeout=30) as client:
        while True:
            opened = await client.post(url, json=INIT, headers=HEADERS)
            left = seconds - (time.monotonic() - started)
            if opened.status_code == 503 and left > 0:
                await asyncio.sleep(min(float(opened.headers.get("retry-after", "1")), left))
                continue
            assert opened.status_code == 200, (opened.status_code, opened.text[:200])
            mine = {**HEADERS, "mcp-session-id": opened.headers["mcp-session-id"]}
            await client.post(url, json=INITIALIZED, headers=mine)
            call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call"}
            call["params"] = {"name": "kg_execute", "arguments": {"sparql": QUERY}}
            result = _reply(await client.post(url, json=call, headers=mine))["result"]
            assert isinstance(result, dict) and not result.get("isError"), result
            return time.monotonic() - started


def test_a_flood_on_fresh_connections_does_not_lock_out_the_next_local_client() -> None:
    args = ["--sessions-per-address", str(PER_ADDRESS), "--session-idle-minutes", "1"]
    with http_server(args) as url:

        async def main() -> tuple[dict[int, int], set[str], float, float, int, int]:
            async with httpx.AsyncClient(timeout=30) as victim:
                mine = (await victim.post(url, json=INIT, headers=HEADERS)).headers["mcp-session-id"]
                ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
                mine_headers = {**HEADERS, "mcp-session-id": mine}
                await victim.post(url, json=INITIALIZED, headers=mine_headers)
                statuses, retry_after, flood_s = await asyncio.to_thread(_flood, url)
                victim_after = (await victim.post(url, json=ping, headers=mine_headers)).status_code
                served_s = await _served_within(url, 5.0)
                victim_last = (await victim.post(url, json=ping, headers=mine_headers)).status_code
            return statuses, retry_after, flood_s, served_s, victim_after, victim_last

        statuses, retry_after, flood_s, served_s, victim_after, victim_last = asyncio.run(main())
    opened = statuses.get(200, 0)
    assert set(statuses) <= {200, 503}, statuses
    # The flood held fewer sessions than the address's cap (it could not reach it within an idle window) ...
    assert opened < PER_ADDRESS * 3 // 4, (statuses, flood_s)
    assert statuses.get(503, 0) > 0 and all(a.isdigit() and int(a) >= 1 for a in retry_after), retry_after
    # ... so the next local client is served within seconds of the flood, not after the idle expiry ...
    assert served_s < 5.0, served_s
    # ... and nobody's live session was closed to make room.
    assert victim_after == 200 and victim_last == 200

"""``saga mcp --http`` under load: concurrent first calls, and a client that opens sessions and abandons them."""

from __future__ import annotations

import asyncio
import time

import httpx

from tests.support.mcp_servers import http_server, http_session

EX = "PREFIX ex: <http://example.org/space/> "
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "flood", "version": "0"}},
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


async def execute(url: str, query: str) -> bool:
    async with http_session(url) as session:
        result = await session.call_tool("kg_execute", {"sparql": query})
        return not result.is_error and (result.structured_content or {}).get("status") == "ok"


def test_eight_concurrent_first_executes_on_a_fresh_server_succeed_and_so_does_the_next() -> None:
    queries = [EX + f"SELECT ?m WHERE {{ ?m ex:crewMember ?a }} LIMIT {n + 1}" for n in range(8)]
    with http_server() as url:

        async def main() -> tuple[list[bool], bool]:
            first = await asyncio.gather(*(execute(url, q) for q in queries))
            return list(first), await execute(url, queries[0])

        first, after = asyncio.run(main())
    assert first == [True] * 8 and after


def test_abandoned_sessions_far_beyond_the_cap_do_not_lock_out_a_new_client() -> None:
    # 20 times the per-client cap on one connection shows the mechanism (a flood on fresh connections,
    # which the address's new-session budget bounds, is test_mcp_flood.py's).
    with http_server(["--sessions-per-client", "32"]) as url:
        first_ids: list[str] = []

        async def flood(client: httpx.AsyncClient, count: int) -> int:
            opened = 0
            for _ in range(count):
                response = await client.post(url, json=INIT, headers=HEADERS)
                session_id = response.headers.get("mcp-session-id")
                opened += response.status_code == 200 and session_id is not None
                if session_id is not None and not first_ids:
                    first_ids.append(session_id)
            return opened

        async def main() -> tuple[int, float, bool, int]:
            started = time.monotonic()
            async with httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=1)) as client:
                opened = sum(await asyncio.gather(*(flood(client, 40) for _ in range(16))))
                flood_s = time.monotonic() - started
                ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
                oldest = await client.post(url, json=ping, headers={**HEADERS, "mcp-session-id": first_ids[0]})
            served = await execute(url, EX + "SELECT ?m WHERE { ?m ex:crewMember ?a } LIMIT 1")
            return opened, flood_s, served, oldest.status_code

        opened, flood_s, served, oldest_status = asyncio.run(main())
    # Every one of the 640 was admitted (the oldest of the flooder's own closed to make room), and a
    # new client is served at once, not 503 until idle sessions expire.
    assert opened == 640, (opened, flood_s)
    assert served
    # The cap closed the flooder's oldest session rather than keeping all 640 for 30 minutes.
    assert oldest_status == 404


async def _open(client: httpx.AsyncClient, url: str, headers: dict[str, str] | None = None) -> httpx.Response:
    return await client.post(url, json=INIT, headers={**HEADERS, **(headers or {})})


async def _ping(client: httpx.AsyncClient, url: str, session: str) -> int:
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    return (await client.post(url, json=ping, headers={**HEADERS, "mcp-session-id": session})).status_code


def test_no_client_can_close_another_clients_session_and_minted_credentials_buy_nothing() -> None:
    # Issue 38 point 2: 70 sessions from any local process closed another local client's session (the cap
    # was keyed by address plus the unverified Authorization header, so varying it also minted budgets).
    with http_server(["--sessions-per-client", "8", "--sessions-per-address", "40"]) as url:

        async def main() -> tuple[int, int, int, list[int], int, int]:
            async with httpx.AsyncClient(timeout=30) as victim, httpx.AsyncClient(timeout=30) as flooder:
                mine = (await _open(victim, url)).headers["mcp-session-id"]
                first = (await _open(flooder, url)).headers["mcp-session-id"]
                for n in range(20):  # one connection, the same address, a fresh "credential" each time
                    await _open(flooder, url, {"authorization": f"Bearer minted-{n}"})
                victim_after_flood = await _ping(victim, url, mine)
                flooder_first = await _ping(flooder, url, first)  # its own oldest was closed: 8 per connection
                # New connections each time: the address's budget of new sessions refuses more (a quarter of
                # its cap at once), closing nobody's session.
                statuses = []
                for _ in range(40):
                    async with httpx.AsyncClient(timeout=30) as fresh:
                        statuses.append((await _open(fresh, url)).status_code)
                victim_after_address_cap = await _ping(victim, url, mine)
                stranger_delete = (
                    await flooder.delete(url, headers={**HEADERS, "mcp-session-id": "0" * 32})
                ).status_code
                return victim_after_flood, flooder_first, victim_after_address_cap, statuses, stranger_delete, 0

        victim_after_flood, flooder_first, victim_after_address_cap, statuses, stranger_delete, _ = asyncio.run(main())
    assert victim_after_flood == 200 and victim_after_address_cap == 200
    assert flooder_first == 404
    assert set(statuses) <= {200, 503}, statuses
    assert statuses.count(503) >= 30  # beyond the address's budget: refused, never another's session closed
    assert stranger_delete == 404  # an id the server did not issue to anyone closes nothing


def test_independent_stateless_clients_get_independent_budgets() -> None:
    # Issue 38 point 3 of the report: 16 clients on 2026-07-28 (no session) shared one "session" budget.
    from mcp import Client

    query = EX + "SELECT ?m WHERE { ?m ex:crewMember ?a } LIMIT 3"
    with http_server(["--calls-per-session", "1"]) as url:

        async def one() -> list[str]:
            texts = []
            async with Client(url, mode="auto") as client:
                for _ in range(4):
                    result = await client.call_tool("kg_execute", {"sparql": query})
                    texts.append(
                        " ".join(b.text for b in result.content if b.type == "text") if result.is_error else "ok"
                    )
            return texts

        async def main() -> list[str]:
            return [text for texts in await asyncio.gather(*(one() for _ in range(16))) for text in texts]

        texts = asyncio.run(main())
    assert texts == ["ok"] * 64, [t for t in texts if t != "ok"][:3]

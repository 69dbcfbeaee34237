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


def test_ten_thousand_abandoned_sessions_do_not_lock_out_a_new_client() -> None:
    with http_server(["--sessions-per-client", "32"]) as url:

        async def flood(client: httpx.AsyncClient, count: int) -> int:
            opened = 0
            for _ in range(count):
                response = await client.post(url, json=INIT, headers=HEADERS)
                opened += response.status_code == 200 and "mcp-session-id" in response.headers
            return opened

        async def main() -> tuple[int, float, bool]:
            started = time.monotonic()
            async with httpx.AsyncClient(timeout=30) as client:
                opened = sum(await asyncio.gather(*(flood(client, 625) for _ in range(16))))
            flood_s = time.monotonic() - started
            return opened, flood_s, await execute(url, EX + "SELECT ?m WHERE { ?m ex:crewMember ?a } LIMIT 1")

        opened, flood_s, served = asyncio.run(main())
    # Every one of the 10,000 was admitted (the oldest of the flooder's own closed to make room), and a
    # new client is served at once, not 503 until idle sessions expire.
    assert opened == 10_000, (opened, flood_s)
    assert served

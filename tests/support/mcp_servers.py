"""Run ``saga mcp`` as a real child process and talk to it with the official MCP Python client.

Over stdio the client starts the server itself; over HTTP the server is started on a free
loopback port (``--port 0``), the URL read from its stderr, and the process stopped after.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.support.http_servers import SAGA, saga_server, server_env

#: The source tools of issue 14 that ``saga mcp`` serves beside the SAGA tools.
SOURCE_TOOLS = frozenset(
    {
        "kg_catalog_list",
        "kg_catalog_categories",
        "kg_catalog_find",
        "kg_source_summary",
        "kg_resolve_entity",
        "kg_expand_entity",
        "kg_bridge_sources",
        "kg_join_sources",
    }
)


@asynccontextmanager
async def stdio_session(
    args: list[str] | None = None, env: Mapping[str, str] | None = None, elicitation_callback: Any = None
) -> AsyncIterator[ClientSession]:
    """An initialized client session with ``saga mcp`` over stdio (declaring elicitation when given a callback)."""
    params = StdioServerParameters(command=SAGA, args=["mcp", *(args or [])], env=server_env(env))
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, elicitation_callback=elicitation_callback) as session,
    ):
        await session.initialize()
        yield session


@contextmanager
def http_server(args: list[str] | None = None, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """``saga mcp --http`` on a free loopback port; yields its ``/mcp`` URL."""
    with saga_server(["mcp", "--http", *(args or [])], env) as url:
        yield url


@asynccontextmanager
async def http_session(url: str) -> AsyncIterator[ClientSession]:
    """An initialized client session with a streamable-HTTP MCP server."""
    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session

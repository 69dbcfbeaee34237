"""Run ``saga mcp`` as a real child process and talk to it with the official MCP Python client.

Over stdio the client starts the server itself; over HTTP the server is started on a free
loopback port (``--port 0``), the URL read from its stderr, and the process stopped after.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

SAGA = str(Path(sys.executable).with_name("saga"))
_URL = re.compile(r"serving (http://\S+)")


def server_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a server process: tracing off, no model or graph unless given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SAGA_", "OPENAI_", "LANGCHAIN_"))}
    env.update({"LANGSMITH_TRACING": "false", "LANGSMITH_TEST_TRACKING": "false"})
    env.update(extra or {})
    return env


@asynccontextmanager
async def stdio_session(
    args: list[str] | None = None, env: Mapping[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """An initialized client session with ``saga mcp`` over stdio."""
    params = StdioServerParameters(command=SAGA, args=["mcp", *(args or [])], env=server_env(env))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@contextmanager
def http_server(args: list[str] | None = None, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """``saga mcp --http`` on a free loopback port; yields its ``/mcp`` URL."""
    process = subprocess.Popen(
        [SAGA, "mcp", "--http", "--port", "0", *(args or [])],
        env=server_env(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        url = None
        for line in process.stderr:
            found = _URL.search(line)
            if found:
                url = found.group(1)
                break
        assert url is not None, f"saga mcp --http exited with {process.wait(5)} before serving"
        # Keep draining stderr so the server never blocks on a full pipe.
        threading.Thread(target=process.stderr.read, daemon=True).start()
        yield url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@asynccontextmanager
async def http_session(url: str) -> AsyncIterator[ClientSession]:
    """An initialized client session with a streamable-HTTP MCP server."""
    async with streamable_http_client(url) as (read, write, _), ClientSession(read, write) as session:
        await session.initialize()
        yield session

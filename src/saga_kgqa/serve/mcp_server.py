"""``saga mcp``: the SAGA tools (and, with a model, the whole agent) as an MCP server on the official SDK.

Transports: stdio (a host starts ``saga mcp`` as a child process) and streamable HTTP
(``saga mcp --http``, on 127.0.0.1 by default, at ``/mcp``). Each tool set is a function
of the :class:`~saga_kgqa.serve.mcp_tooling.ToolHost`; :data:`TOOL_SETS` lists them, so
serving another set is one line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from mcp.server.fastmcp import FastMCP

from saga_kgqa.serve.http_face import serve_face
from saga_kgqa.serve.mcp_arguments import CheckedFastMCP
from saga_kgqa.serve.mcp_ask import ask_tools
from saga_kgqa.serve.mcp_example_tools import example_tools
from saga_kgqa.serve.mcp_join_tool import join_tools
from saga_kgqa.serve.mcp_pattern_tools import pattern_tools
from saga_kgqa.serve.mcp_saga_tools import saga_tools
from saga_kgqa.serve.mcp_source_tools import source_tools
from saga_kgqa.serve.mcp_tooling import ToolHost, ToolSpec
from saga_kgqa.serve.perimeter import Perimeter, RunSlots

#: Server name reported at initialization (and in ``server.json``).
SERVER_NAME = "saga-kgqa"

#: Every tool set the server offers, in listing order.
TOOL_SETS: tuple[Callable[[ToolHost], list[ToolSpec]], ...] = (
    saga_tools,
    pattern_tools,
    source_tools,
    join_tools,
    ask_tools,
    example_tools,  # only when the operator configured examples
)

INSTRUCTIONS = (
    "Ground questions over knowledge graphs: search names, look up entities (their types and the "
    "properties that fit them), see an entity's triple patterns ranked for a question, see property examples, "
    "and execute read-only SPARQL. The types a lookup "
    "or query finds are kept per session and block later type-inconsistent queries. Pick a graph only by "
    "its source name."
)

Transport = Literal["stdio", "http"]


def build_server(host: ToolHost, *, bind: str = "127.0.0.1", port: int = 0) -> FastMCP:
    """An MCP server offering every tool set over ``host``.

    Args:
        host: The sources, switches and per-session state the tools share.
        bind: HTTP bind address (loopback by default; DNS-rebinding protection is on for loopback).
        port: HTTP port (0 picks a free one when serving).
    """
    server = CheckedFastMCP(SERVER_NAME, instructions=INSTRUCTIONS, host=bind, port=port, log_level="WARNING")
    for tool_set in TOOL_SETS:
        for spec in tool_set(host):
            server.add_tool(
                spec.handler,
                name=spec.name,
                title=spec.title,
                description=spec.description,
                annotations=spec.annotations(),
                structured_output=True,
            )
    return server


def serve(server: FastMCP, transport: Transport) -> None:
    """Serve until the host closes stdin (stdio) or the process is stopped (HTTP)."""
    if transport == "stdio":
        server.run("stdio")
        return
    # Every POST is one JSON-RPC call (a tool call holds its request until it answers): those are capped.
    perimeter = Perimeter.for_bind(
        server.settings.host, is_run=lambda method, _path: method == "POST", slots=RunSlots.from_env(64, 32)
    )
    serve_face(server.streamable_http_app(), perimeter, server.settings.host, server.settings.port, path="/mcp")

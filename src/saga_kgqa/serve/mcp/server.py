"""``saga mcp``: the SAGA tools (and, with a model, the whole agent) as an MCP server on the official SDK (2.x).

The SDK serves both protocol generations: 2026-07-28 (stateless requests, ``server/discover``)
and the 2025-11-25 handshake that hosts still speak. Transports: stdio (a host starts ``saga
mcp`` as a child process) and streamable HTTP (``saga mcp --http``, on 127.0.0.1 by default,
at ``/mcp``). Each tool set is a function of the :class:`~saga_kgqa.serve.mcp.tooling.ToolHost`;
:data:`TOOL_SETS` lists them, so serving another set is one line. Every tool name carries the
``kg_`` prefix so that a host loading several servers sees no clash (``kg_search``, not ``search``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp, Receive, Scope, Send

from saga_kgqa import __version__
from saga_kgqa.serve.http_face import serve_face
from saga_kgqa.serve.mcp.ask import ask_tools
from saga_kgqa.serve.mcp.content import PROMPT_NAME, add_content
from saga_kgqa.serve.mcp.example_tools import example_tools
from saga_kgqa.serve.mcp.join_tool import join_tools
from saga_kgqa.serve.mcp.limits import HttpLimits
from saga_kgqa.serve.mcp.middleware import install
from saga_kgqa.serve.mcp.pattern_tools import pattern_tools
from saga_kgqa.serve.mcp.resource_templates import add_resource_templates
from saga_kgqa.serve.mcp.saga_tools import saga_tools
from saga_kgqa.serve.mcp.session_cap import SessionCap
from saga_kgqa.serve.mcp.source_tools import source_tools
from saga_kgqa.serve.mcp.tooling import ToolHost, ToolSpec
from saga_kgqa.serve.memory import worker_threads
from saga_kgqa.serve.perimeter import Perimeter, RunSlots

#: Server name reported at initialization (and in ``server.json``).
SERVER_NAME = "saga-kgqa"

#: The prefix of every tool name: hosts that load several servers keep the tools apart.
TOOL_PREFIX = "kg_"

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
    "its source name (kg_catalog_list, or the saga://catalog resource)."
)

Transport = Literal["stdio", "http"]


def build_server(host: ToolHost) -> MCPServer[Any]:
    """An MCP server offering every tool set over ``host``, its resources, prompts and completions.

    Args:
        host: The sources, switches, limits and per-session state the tools share.
    """
    server: MCPServer[Any] = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")
    for tool_set in TOOL_SETS:
        for spec in tool_set(host):
            server.add_tool(
                spec.handler,
                name=TOOL_PREFIX + spec.name,
                title=spec.title,
                description=spec.description,
                annotations=spec.annotations(),
                structured_output=True,
            )
    add_content(server, host)
    add_resource_templates(server, host)
    install(server, host.gate, frozenset({PROMPT_NAME}))
    return server


def http_app(
    server: MCPServer[Any],
    limits: HttpLimits,
    *,
    bind: str = "127.0.0.1",
    on_session_end: Callable[[str], None] | None = None,
) -> ASGIApp:
    """The streamable-HTTP ASGI app at ``/mcp``: idle sessions expire, each client holds a bounded number.

    The one place the HTTP face is put together, so a perimeter (Host/Origin allow-lists, a
    bearer token) wraps the returned app here.

    Args:
        server: The server from :func:`build_server`.
        limits: Session expiry and the per-client session cap.
        bind: The bind address (the SDK's DNS-rebinding protection is on for loopback).
        on_session_end: Called with a session's id once it ended (the tools' per-session state goes).
    """
    app = server.streamable_http_app(
        streamable_http_path="/mcp",
        session_idle_timeout=limits.session_idle_s,
        host=bind,
    )
    capped = SessionCap(
        app,
        per_client=limits.sessions_per_client,
        per_address=limits.sessions_per_address,
        idle_s=limits.session_idle_s,
        handshake_s=limits.handshake_s,
        on_end=on_session_end,
    )
    return TrimmedHeaders(capped)


class TrimmedHeaders:
    """ASGI middleware: header values without surrounding spaces or tabs (RFC 9110 §5.5), as the SDK compares them.

    The SDK checks 2026-07-28's ``Mcp-Name`` header against the body verbatim, so a client
    that sends ``Mcp-Name:  kg_search`` with optional whitespace was refused.
    """

    def __init__(self, app: ASGIApp) -> None:
        """Wrap ``app``."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI call with trimmed header values."""
        if scope["type"] == "http":
            scope = {**scope, "headers": [(k, v.strip(b" \t")) for k, v in scope["headers"]]}
        await self.app(scope, receive, send)


def serve(
    server: MCPServer[Any],
    transport: Transport,
    *,
    bind: str,
    port: int,
    limits: HttpLimits,
    on_session_end: Callable[[str], None] | None = None,
) -> None:
    """Serve until the host closes stdin (stdio) or the process is stopped (HTTP)."""
    if transport == "stdio":
        server.run("stdio")
        return
    # The shared HTTP perimeter (Host/Origin allow-lists, the operator's token beyond loopback, run caps)
    # wraps the app; every POST is one JSON-RPC call (a tool call holds its request until it answers).
    perimeter = Perimeter.for_bind(bind, is_run=lambda method, _path: method == "POST", slots=RunSlots.from_env(64, 32))
    app = http_app(server, limits, bind=bind, on_session_end=on_session_end)
    # The tools' blocking work shares a bounded pool (kg_ask runs have their own, see serve/mcp/ask.py):
    # 64 sessions calling at once no longer run 40 threads' worth of work side by side.
    serve_face(app, perimeter, bind, port, path="/mcp", worker_threads=worker_threads())

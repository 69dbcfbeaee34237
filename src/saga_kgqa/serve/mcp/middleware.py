"""Server middleware of ``saga mcp``: call bounds and the JSON-RPC error codes the SDK leaves generic.

* ``tools/call`` passes the :class:`~saga_kgqa.serve.mcp.limits.CallGate`: beyond its bounds
  the call answers at once with a "busy" tool error and a retry hint.
* ``tools/call`` with an argument that is not valid Unicode (a lone surrogate) is refused first.
* ``tools/list`` answers compact schemas (:mod:`saga_kgqa.serve.mcp.schemas`), made once per tool set
  (:class:`CompactListing`): made per request, 64 sessions listing at once left the server about
  16 MB larger for good (allocator memory kept at the burst's high-water mark; bench/serve_load.py).
* ``prompts/get`` for a prompt the server does not have answers ``-32602`` (invalid params),
  as the specification asks, instead of the SDK's generic internal error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, ListToolsResult, TextContent
from pydantic import ValidationError

from saga_kgqa.serve.mcp.arguments import argument_problem, validation_refusal
from saga_kgqa.serve.mcp.limits import CallGate, caller_key
from saga_kgqa.serve.mcp.schemas import compact_schema

#: Tools that run the whole agent: they take a run slot as well as a call slot.
RUN_TOOLS = frozenset({"kg_ask"})


def install(server: MCPServer[Any], gate: CallGate, prompts: frozenset[str]) -> None:
    """Add the middleware to ``server``."""
    listing = CompactListing(server)

    async def bounded(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params: Mapping[str, Any] = ctx.params or {}
        if ctx.method == "prompts/get" and params.get("name") not in prompts:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"unknown prompt {str(params.get('name'))[:100]!r}; prompts: {', '.join(sorted(prompts))}",
            )
        if ctx.method == "tools/list":
            return await listing.reply(ctx, call_next)
        if ctx.method != "tools/call" or ctx.request_id is None:
            return await call_next(ctx)
        problem = argument_problem(params.get("arguments"))
        if problem is None:  # the schema checked here: the SDK's own refusal quotes pydantic (and the input)
            problem = schema_problem(server, params.get("name"), params.get("arguments"))
        if problem is not None:
            return CallToolResult(content=[TextContent(type="text", text=problem)], is_error=True)
        try:
            with gate.call(_caller(ctx), run=params.get("name") in RUN_TOOLS):
                return await call_next(ctx)
        except ToolError as exc:  # raised by the gate before the call ran
            return CallToolResult(content=[TextContent(type="text", text=str(exc))], is_error=True)

    server.middleware.append(bounded)


class CompactListing:
    """The compact ``tools/list`` reply, made once for the server's tool set and shared by every request.

    The reply depends only on the registered tools and the protocol version (the SDK shapes the
    wire form per version before the middleware sees it), so it is made from the SDK's own listing
    the first time per version and again only when the set of tools changes (the SDK's tool objects
    are the key).
    Every request used to dump and compact the whole listing (about 50 KB of schemas as Python
    objects, several copies of it), and a burst of sessions listing at once grew the heap for good.
    The SDK copies a returned dict before it shapes the wire form, so sharing one is safe; nothing
    here or in the SDK writes into it.
    """

    def __init__(self, server: MCPServer[Any]) -> None:
        """Serve the listing of ``server``'s tools."""
        self._server = server
        #: Per protocol version: the tools the reply was made for (held, so their identities stay theirs), the reply.
        self._made: dict[str, tuple[tuple[object, ...], HandlerResult]] = {}

    def _tools(self) -> tuple[object, ...] | None:
        manager = getattr(self._server, "_tool_manager", None)  # the SDK keeps its tools there (pinned SDK line)
        return None if manager is None else tuple(manager.list_tools())

    async def reply(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """The compact listing: the one made for the current tools, else made now from the SDK's listing."""
        version = str(ctx.protocol_version)
        tools, made = self._tools(), self._made.get(version)
        if tools is not None and made is not None and _same(made[0], tools):
            return made[1]
        result = compact_listing(await call_next(ctx))
        if tools is not None and isinstance(result, dict):
            self._made[version] = (tools, result)  # two first requests at once both make it: the same listing
        return result


def _same(made_for: tuple[object, ...], tools: tuple[object, ...]) -> bool:
    return len(made_for) == len(tools) and all(a is b for a, b in zip(made_for, tools, strict=True))


def compact_listing(result: HandlerResult) -> HandlerResult:
    """A ``tools/list`` result (a model or its wire dict) with compact schemas (see :mod:`.mcp_schemas`)."""
    if isinstance(result, ListToolsResult):
        result = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
        return result
    tools = []
    for tool in result["tools"]:
        tool = dict(tool)
        tool["inputSchema"] = compact_schema(tool.get("inputSchema"), descriptions=True)
        if "outputSchema" in tool:
            tool["outputSchema"] = compact_schema(tool["outputSchema"], descriptions=False)
        tools.append(tool)
    return {**result, "tools": tools}


def schema_problem(server: MCPServer[Any], name: object, arguments: object) -> str | None:
    """The sanitised refusal when ``arguments`` fail the input schema of tool ``name``; else ``None``.

    Unknown tools and argument shapes the SDK refuses itself (not an object) are left to it.
    """
    manager = getattr(server, "_tool_manager", None)  # the SDK keeps its tools there (pinned SDK line)
    tool = manager.get_tool(name) if manager is not None and isinstance(name, str) else None
    if tool is None or not isinstance(arguments, dict | None):
        return None
    try:
        tool.fn_metadata.validate_arguments(arguments or {})
    except ValidationError as exc:
        return validation_refusal(exc)
    return None


def _caller(ctx: ServerRequestContext[Any, Any]) -> str:
    """Whose calls these are: the HTTP session, else the connection (stateless requests), else stdio."""
    return caller_key(ctx.request)

"""Server middleware of ``saga mcp``: call bounds and the JSON-RPC error codes the SDK leaves generic.

* ``tools/call`` passes the :class:`~saga_kgqa.serve.mcp.limits.CallGate`: beyond its bounds
  the call answers at once with a "busy" tool error and a retry hint.
* ``tools/call`` with an argument that is not valid Unicode (a lone surrogate) is refused first.
* ``tools/list`` answers compact schemas (:mod:`saga_kgqa.serve.mcp.schemas`).
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

    async def bounded(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params: Mapping[str, Any] = ctx.params or {}
        if ctx.method == "prompts/get" and params.get("name") not in prompts:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"unknown prompt {str(params.get('name'))[:100]!r}; prompts: {', '.join(sorted(prompts))}",
            )
        if ctx.method == "tools/list":
            return compact_listing(await call_next(ctx))
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

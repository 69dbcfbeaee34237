"""``join_sources`` as an MCP tool: federated execution over two catalog sources, keys carried by the tool.

It is :func:`saga_kgqa.sources.federation.join_sources` over the server's catalog, by source
*name* only: query 1 runs on the left source, its key values are bound into query 2 on the
right one in that side's form, and the rows are joined on the normalised key. Both queries
pass the guard and the source's type check, under one deadline. Kept apart from
:mod:`saga_kgqa.serve.mcp.source_tools` so registering it is one line in ``TOOL_SETS``.
This module does not use postponed annotations: MCPServer reads the handler's annotations.
"""

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from saga_kgqa.serve.mcp.models import ToolOutput
from saga_kgqa.serve.mcp.source_tools import shared_calls
from saga_kgqa.serve.mcp.tooling import LISTED_SOURCES, RETRY_NOTE, ToolHost, ToolSpec
from saga_kgqa.sources.federation import join_sources
from saga_kgqa.tools.render import term_text


class JoinOutput(ToolOutput):
    """A two-source join: ``source`` (left) and ``right``, the key, its normalisation and the joined rows."""

    right: str = ""
    key: str | None = None
    normalisation: str = "exact"
    bound_query: str = ""
    row_count: int = 0
    rows_at_least: int = Field(default=0, description="Joined rows before the row cap cut them (at least).")
    rows: list[dict[str, str]] = Field(default_factory=list)


def join_tools(host: ToolHost) -> list[ToolSpec]:
    """The ``join_sources`` tool over ``host``'s catalog."""
    calls = shared_calls(host)  # the source tools' opened sources, not a second copy
    names = host.sources.names
    listed = f"one of: {', '.join(names)}" if len(names) <= LISTED_SOURCES else "see kg_catalog_list"
    Named = Annotated[str, Field(description=f"Source name, {listed}.", json_schema_extra={"enum": names})]
    Query = Annotated[str, Field(description="A SELECT query naming the key variable (e.g. ?key).", min_length=1)]

    async def join(
        left: Named, left_query: Query, right: Named, right_query: Query, ctx: Context[Any, Any]
    ) -> Annotated[CallToolResult, JoinOutput]:
        left_name, right_name = calls.name(left), calls.name(right)
        output = JoinOutput(source=left_name, right=right_name)
        request = f"{left_name}: {left_query} ==> {right_name}: {right_query}"
        got = await calls.run(lambda: join_sources(calls.sources, request), output)
        if isinstance(got, CallToolResult):
            return got
        prefixes = calls.sources.get(right_name).prefixes
        output.key, output.normalisation, output.bound_query = got.key, got.normalisation, got.bound_query
        output.row_count, output.rows_at_least = got.row_count, max(got.product, got.row_count)
        rows = got.result.rows if got.result is not None else []
        output.rows = [{name: term_text(term, prefixes) for name, term in row.items()} for row in rows]
        return calls.result(got.text, output, "rows")

    return [
        ToolSpec(
            "join_sources",
            "Join two sources",
            "Answer across two sources without copying keys: left_query runs on the left source, the distinct "
            "values of the variable both queries name (?key by preference) are bound into right_query on the "
            "right source, written in that source's form (strings, zero-padded codes, doubles), and the rows are "
            "joined on the normalised key. Use kg_bridge_sources first to find the key properties. SERVICE is "
            f"rejected; an empty join says whether the key datatypes differ.\n{host.source_listing()}\n"
            f"{RETRY_NOTE}",
            join,
            open_world=host.sources.any_remote,
        )
    ]

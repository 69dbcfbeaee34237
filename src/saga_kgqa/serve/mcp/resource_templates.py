"""Resource templates of ``saga mcp``: ``saga://sources/{name}/summary``, one template for every source's summary.

Each source's summary is also listed as a resource of its own (:mod:`saga_kgqa.serve.mcp.content`); the
template is what hosts show for "fill in a name" and complete (the ``name`` argument completes to the
catalog's source names, :func:`~saga_kgqa.serve.mcp.content.add_content`). A name is taken only from the
operator's catalog: anything else (a URL, a path, another name) is refused as invalid params before any
work, naming the known sources. The text is the summary the resource of that name serves (built from
sanitised graph text, endpoint URLs and paths replaced by the source's name), capped.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from saga_kgqa.serve.mcp.content import SUMMARY_TEMPLATE, summary_reader
from saga_kgqa.serve.mcp.tooling import ToolHost
from saga_kgqa.text_safety import cap_block, graph_text

#: The most characters a summary read through the template returns.
MAX_SUMMARY_CHARS = 60_000
#: The most characters of a refused name echoed back.
_NAME_SHOWN = 80


def add_resource_templates(server: MCPServer[Any], host: ToolHost) -> None:
    """Register the summary template on ``server`` (names from ``host``'s catalog only)."""
    names = host.sources.names

    @server.resource(
        SUMMARY_TEMPLATE,
        name="source-summary",
        title="Schema summary of a source",
        description="What is needed to query a source of the catalog: classes with counts and their predicates. "
        f"name: one of {', '.join(names)}.",
        mime_type="text/markdown",
    )
    async def source_summary(name: str) -> str:
        if name not in names:
            shown = graph_text(name, cap=_NAME_SHOWN)
            raise MCPError(code=INVALID_PARAMS, message=f"unknown source {shown!r}; sources: {', '.join(names)}")
        text: str = await summary_reader(host, name)()
        return cap_block(text, MAX_SUMMARY_CHARS)

    del source_summary  # registered by the decorator

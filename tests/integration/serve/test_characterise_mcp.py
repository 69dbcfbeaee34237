"""Characterisation of ``saga mcp`` (issue 41): the tool list and each tool's replies, pinned in goldens.

One ``saga mcp`` over stdio (the official SDK client, as an MCP host talks to it) with a catalog over the
example graph and a keyed scripted model, so ``kg_ask`` is served too. The tool list (names, titles,
descriptions, input and output schemas, annotations) and every tool's structured and text reply are
normalised and compared with ``tests/data/characterisation/mcp_*.json``; ``SAGA_UPDATE_GOLDEN=1`` rewrites.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.support.characterise import (
    ANSWERED_SPARQL,
    EMPTY_SPARQL,
    RUNS,
    check_golden,
    lines,
    normalise,
    run_key,
    scripted_setting,
)
from tests.support.keyed_models import case_question
from tests.support.mcp_servers import stdio_session

ASTRONAUTS_USSR = (
    "PREFIX ex: <http://example.org/space/> SELECT ?key WHERE { ?key a ex:Astronaut ; ex:nationality ex:USSR }"
)
CREWS = "PREFIX ex: <http://example.org/space/> SELECT ?m ?key WHERE { ?m ex:crewMember ?key }"

#: (tool, arguments) in the order they are called; one server answers them all.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("kg_search", {"text": "Lovell"}),
    ("kg_search", {"text": "moon", "source": "example"}),
    ("kg_lookup", {"entity": "ex:Apollo13"}),
    ("kg_lookup", {"entity": "Jim Lovell"}),
    ("kg_examples", {"property": "ex:crewMember"}),
    ("kg_execute", {"sparql": ANSWERED_SPARQL}),
    ("kg_execute", {"sparql": EMPTY_SPARQL}),
    ("kg_execute", {"sparql": "DROP ALL"}),
    ("kg_execute", {"sparql": ANSWERED_SPARQL, "source": "nowhere"}),
    ("kg_patterns", {"entity": "ex:JimLovell", "question": "Which missions did Jim Lovell fly?"}),
    ("kg_catalog_list", {}),
    ("kg_catalog_categories", {}),
    ("kg_catalog_find", {"text": "moon"}),
    ("kg_source_summary", {}),
    ("kg_resolve_entity", {"text": "Jim Lovell"}),
    ("kg_expand_entity", {"entity": "ex:Apollo13"}),
    ("kg_bridge_sources", {"left": "example", "right": "example"}),
    ("kg_join_sources", {"left": "example", "left_query": ASTRONAUTS_USSR, "right": "example", "right_query": CREWS}),
]


def _reply(result: Any, roots: tuple[Path, ...]) -> dict[str, Any]:
    texts = [getattr(part, "text", None) for part in result.content]
    return {
        "is_error": bool(result.is_error),
        "content_types": [part.type for part in result.content],
        "text": [lines(text, roots) for text in texts if text is not None],
        "structured": normalise(result.structured_content, roots),
    }


def test_tool_list_and_every_reply_on_the_example_graph(tmp_path: Path) -> None:
    setting = scripted_setting(tmp_path, ["mcp"])
    roots = (tmp_path,)

    async def main() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        async with stdio_session(env=setting.env) as session:
            tools = [
                {
                    "name": tool.name,
                    "title": tool.title,
                    "description": lines(tool.description or ""),
                    "input_schema": tool.input_schema,
                    "output_schema": tool.output_schema,
                    "annotations": tool.annotations.model_dump(mode="json") if tool.annotations else None,
                }
                for tool in (await session.list_tools()).tools
            ]
            replies = []
            for name, arguments in CALLS:
                reply = _reply(await session.call_tool(name, arguments), roots)
                replies.append({"tool": name, "arguments": arguments, **reply})
            for run in RUNS:
                arguments = {"question": case_question(run.question, run_key("mcp", run))}
                reply = _reply(await session.call_tool("kg_ask", arguments), roots)
                replies.append({"tool": "kg_ask", "run": run.name, **reply})
            return tools, replies

    tools, replies = asyncio.run(main())
    check_golden("mcp_tools", tools)  # nothing in it varies: not normalised (a schema names run_id)
    check_golden("mcp_replies", replies)

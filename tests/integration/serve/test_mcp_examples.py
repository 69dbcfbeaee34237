"""The ``worked_examples`` MCP tool: listed only when the operator configured examples, answering from them."""

from __future__ import annotations

import asyncio
from pathlib import Path

from mcp import ClientSession

from saga_kgqa.examples.model import QueryExample, write_examples
from tests.support.mcp_servers import stdio_session

EXAMPLES = [
    QueryExample(
        question="Which astronauts flew on Apollo 13?",
        sparql="PREFIX ex: <http://example.org/space/> SELECT ?a WHERE { ex:apollo13 ex:crewMember ?a }",
        source="graph:shacl",
    ),
    QueryExample(
        question="When was Apollo 11 launched?",
        sparql="PREFIX ex: <http://example.org/space/> SELECT ?d WHERE { ex:apollo11 ex:launchDate ?d }",
        source="graph:shacl",
    ),
]


def test_worked_examples_tool_lists_and_answers_only_with_configured_examples(tmp_path: Path) -> None:
    path = tmp_path / "examples.jsonl"
    write_examples(EXAMPLES, path)

    async def configured(session: ClientSession) -> None:
        names = {tool.name for tool in (await session.list_tools()).tools}
        assert "kg_worked_examples" in names
        result = await session.call_tool(
            "kg_worked_examples", {"question": "Who was on the crew of Apollo 13?", "k": 1}
        )
        assert not result.is_error
        assert result.structured_content is not None
        examples = result.structured_content["examples"]
        assert [e["question"] for e in examples] == ["Which astronauts flew on Apollo 13?"]

    async def plain(session: ClientSession) -> None:
        names = {tool.name for tool in (await session.list_tools()).tools}
        assert "kg_worked_examples" not in names

    async def main() -> None:
        async with stdio_session(env={"SAGA_EXAMPLES_FILE": str(path), "SAGA_PATTERN_RANKING": "bm25"}) as session:
            await configured(session)
        async with stdio_session() as session:
            await plain(session)

    asyncio.run(main())

"""The source tools of ``saga mcp`` (catalog, summary, resolution, expansion, bridging) on a two-source catalog.

Listed and called through the official MCP Python client over stdio and over streamable HTTP.
The catalog holds the lab graph twice: ``lab`` (its TriG file, with named graphs and a
category) and ``flat`` (the same triples in one N-Triples file), so bridging finds the same IRIs.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pyoxigraph as ox
import pytest
from mcp import ClientSession
from mcp.types import CallToolResult

from tests.conftest import TEST_DATA
from tests.support.mcp_servers import SOURCE_TOOLS, http_server, http_session, stdio_session

LAB = TEST_DATA / "autoschema" / "lab.trig"
L = "http://example.org/lab/"


def text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    store = ox.Store()
    store.bulk_load(path=str(LAB), format=ox.RdfFormat.TRIG)
    flat = tmp_path / "lab.nt"
    ox.serialize([ox.Triple(q.subject, q.predicate, q.object) for q in store], str(flat), ox.RdfFormat.N_TRIPLES)
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(
        f'default_source = "lab"\n[sources.lab]\ndata = ["{LAB}"]\ncategories = ["biology"]\n'
        f'[sources.flat]\ndata = ["{flat}"]\ntitle = "Lab, flattened"\n',
        encoding="utf-8",
    )
    return {"SAGA_CATALOG": str(catalog), "SAGA_SURVEY_DIR": str(tmp_path / "cache")}


async def every_source_tool(session: ClientSession, places: list[str]) -> None:
    listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(listed) >= SOURCE_TOOLS
    for name in SOURCE_TOOLS:
        tool = listed[name]
        assert tool.annotations is not None and tool.annotations.readOnlyHint is True, name
        assert tool.annotations.openWorldHint is False, name  # both sources are local files
        assert tool.outputSchema is not None and "source" in tool.outputSchema["properties"], name
        assert "flat" in tool.description and "lab" in tool.description and "retry" in tool.description, name
    assert listed["resolve_entity"].inputSchema["properties"]["source"]["enum"] == ["flat", "lab", None]

    sources = await session.call_tool("catalog_list", {})
    assert not sources.isError, text(sources)
    assert sources.structuredContent is not None
    entries = {e["name"]: e for e in sources.structuredContent["sources"]}
    assert entries["flat"]["title"] == "Lab, flattened"
    assert entries["lab"]["derived"] is True and "Protein" in entries["lab"]["title"]  # from the survey
    categories = await session.call_tool("catalog_categories", {})
    assert categories.structuredContent is not None
    assert categories.structuredContent["categories"] == [{"category": "biology", "sources": ["lab"]}]
    assert text(categories) == "biology: lab"
    found = await session.call_tool("catalog_find", {"text": "flattened lab"})
    assert found.structuredContent is not None and found.structuredContent["found"][0]["entry"]["name"] == "flat"

    summary = await session.call_tool("source_summary", {"source": "flat"})
    assert not summary.isError, text(summary)
    assert summary.structuredContent is not None
    classes = {c["id"] for c in summary.structuredContent["classes"]}
    assert classes == {f"<{L}{name}>" for name in ("Scientist", "Institute", "Protein", "Gene")}
    assert "class " in text(summary) and "coverage" in text(summary)

    resolved = await session.call_tool("resolve_entity", {"text": "UniProt:P12345"})
    assert not resolved.isError, text(resolved)
    assert resolved.structuredContent is not None and resolved.structuredContent["source"] == "lab"
    assert resolved.structuredContent["candidates"][0]["iri"] == L + "p1"
    assert resolved.structuredContent["engine"] == "tantivy" and resolved.structuredContent["index_size"] > 0
    resolved = await session.call_tool("resolve_entity", {"text": "Gene Centre", "source": "flat"})
    assert resolved.structuredContent is not None and resolved.structuredContent["candidates"][0]["iri"] == L + "inst2"

    expanded = await session.call_tool("expand_entity", {"entity": f"<{L}alice>", "source": "flat"})
    assert not expanded.isError, text(expanded)
    assert expanded.structuredContent is not None
    ends = [p["end"]["value"] for p in expanded.structuredContent["paths"] if p.get("end")]
    assert "Basel" in ends and "Basel" in text(expanded)  # one hop through the address blank node

    bridged = await session.call_tool("bridge_sources", {"left": "lab", "right": "flat"})
    assert not bridged.isError, text(bridged)
    assert bridged.structuredContent is not None and bridged.structuredContent["right"] == "flat"
    first = bridged.structuredContent["candidates"][0]
    assert first["kind"] == "same_iri" and first["evidence"] > 0
    assert [step["source"] for step in first["plan"]] == ["lab", "flat"]

    joined = await session.call_tool(
        "join_sources",
        {
            "left": "lab",
            "left_query": f"SELECT ?key WHERE {{ ?key a <{first['left_class']}> }}",
            "right": "flat",
            "right_query": "SELECT ?key ?p WHERE { ?key ?p ?o }",
        },
    )
    assert not joined.isError, text(joined)
    assert joined.structuredContent is not None and joined.structuredContent["row_count"] > 0, text(joined)
    assert "VALUES ?key" in joined.structuredContent["bound_query"]

    # Callers see source names, never the operator's file paths.
    for result in (sources, summary, resolved, expanded, bridged, joined):
        shown = text(result) + json.dumps(result.structuredContent)
        assert not any(place in shown for place in places)


async def bad_source_arguments(session: ClientSession) -> None:
    unknown = await session.call_tool("source_summary", {"source": "elsewhere"})
    assert unknown.isError and "configured sources: flat, lab" in text(unknown) and "Hint" in text(unknown)
    same = await session.call_tool("bridge_sources", {"left": "lab", "right": "lab"})
    assert same.isError and "Hint" in text(same)
    not_iri = await session.call_tool("expand_entity", {"entity": "nope:alice"})
    assert not_iri.isError and "Hint" in text(not_iri), text(not_iri)
    missing = await session.call_tool("resolve_entity", {})
    assert missing.isError and "text" in text(missing)
    again = await session.call_tool("catalog_categories", {})  # the server goes on
    assert not again.isError


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_lists_and_calls_every_source_tool(transport: str, env: dict[str, str]) -> None:
    places = [str(LAB), str(Path(env["SAGA_CATALOG"]).parent)]

    async def on_stdio() -> None:
        async with stdio_session(env=env) as session:
            await every_source_tool(session, places)

    if transport == "stdio":
        asyncio.run(on_stdio())
        return
    with http_server(env=env) as url:

        async def on_http() -> None:
            async with http_session(url) as session:
                await every_source_tool(session, places)

        asyncio.run(on_http())


def test_bad_source_arguments_are_tool_errors(env: dict[str, str]) -> None:
    async def main() -> None:
        async with stdio_session(env=env) as session:
            await bad_source_arguments(session)

    asyncio.run(main())

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
        assert tool.annotations is not None and tool.annotations.read_only_hint is True, name
        assert tool.annotations.open_world_hint is False, name  # both sources are local files
        assert tool.output_schema is not None and "source" in tool.output_schema["properties"], name
        assert "flat" in tool.description and "lab" in tool.description and "retry" in tool.description, name
    assert listed["kg_resolve_entity"].input_schema["properties"]["source"]["enum"] == ["flat", "lab", None]

    sources = await session.call_tool("kg_catalog_list", {})
    assert not sources.is_error, text(sources)
    assert sources.structured_content is not None
    entries = {e["name"]: e for e in sources.structured_content["sources"]}
    assert entries["flat"]["title"] == "Lab, flattened"
    assert entries["lab"]["derived"] is True and "Protein" in entries["lab"]["title"]  # from the survey
    categories = await session.call_tool("kg_catalog_categories", {})
    assert categories.structured_content is not None
    assert categories.structured_content["categories"] == [{"category": "biology", "sources": ["lab"]}]
    assert text(categories) == "biology: lab"
    found = await session.call_tool("kg_catalog_find", {"text": "flattened lab"})
    assert found.structured_content is not None and found.structured_content["found"][0]["entry"]["name"] == "flat"

    summary = await session.call_tool("kg_source_summary", {"source": "flat"})
    assert not summary.is_error, text(summary)
    assert summary.structured_content is not None
    classes = {c["id"] for c in summary.structured_content["classes"]}
    assert classes == {f"<{L}{name}>" for name in ("Scientist", "Institute", "Protein", "Gene")}
    assert "class " in text(summary) and "coverage" in text(summary)

    resolved = await session.call_tool("kg_resolve_entity", {"text": "UniProt:P12345"})
    assert not resolved.is_error, text(resolved)
    assert resolved.structured_content is not None and resolved.structured_content["source"] == "lab"
    assert resolved.structured_content["candidates"][0]["iri"] == L + "p1"
    assert resolved.structured_content["engine"] == "tantivy" and resolved.structured_content["index_size"] > 0
    resolved = await session.call_tool("kg_resolve_entity", {"text": "Gene Centre", "source": "flat"})
    assert (
        resolved.structured_content is not None and resolved.structured_content["candidates"][0]["iri"] == L + "inst2"
    )

    expanded = await session.call_tool("kg_expand_entity", {"entity": f"<{L}alice>", "source": "flat"})
    assert not expanded.is_error, text(expanded)
    assert expanded.structured_content is not None
    ends = [p["end"]["value"] for p in expanded.structured_content["paths"] if p.get("end")]
    assert "Basel" in ends and "Basel" in text(expanded)  # one hop through the address blank node

    bridged = await session.call_tool("kg_bridge_sources", {"left": "lab", "right": "flat"})
    assert not bridged.is_error, text(bridged)
    assert bridged.structured_content is not None and bridged.structured_content["right"] == "flat"
    first = bridged.structured_content["candidates"][0]
    assert first["kind"] == "same_iri" and first["evidence"] > 0
    assert [step["source"] for step in first["plan"]] == ["lab", "flat"]

    joined = await session.call_tool(
        "kg_join_sources",
        {
            "left": "lab",
            "left_query": f"SELECT ?key WHERE {{ ?key a <{first['left_class']}> }}",
            "right": "flat",
            "right_query": "SELECT ?key ?p WHERE { ?key ?p ?o }",
        },
    )
    assert not joined.is_error, text(joined)
    assert joined.structured_content is not None and joined.structured_content["row_count"] > 0, text(joined)
    assert "VALUES ?key" in joined.structured_content["bound_query"]
    assert joined.structured_content["rows_at_least"] >= joined.structured_content["row_count"]

    # Callers see source names, never the operator's file paths.
    for result in (sources, summary, resolved, expanded, bridged, joined):
        shown = text(result) + json.dumps(result.structured_content)
        assert not any(place in shown for place in places)


async def bad_source_arguments(session: ClientSession) -> None:
    unknown = await session.call_tool("kg_source_summary", {"source": "elsewhere"})
    assert unknown.is_error and "configured sources: flat, lab" in text(unknown) and "Hint" in text(unknown)
    same = await session.call_tool("kg_bridge_sources", {"left": "lab", "right": "lab"})
    assert same.is_error and "Hint" in text(same)
    not_iri = await session.call_tool("kg_expand_entity", {"entity": "nope:alice"})
    assert not_iri.is_error and "Hint" in text(not_iri), text(not_iri)
    missing = await session.call_tool("kg_resolve_entity", {})
    assert missing.is_error and "text" in text(missing)
    again = await session.call_tool("kg_catalog_categories", {})  # the server goes on
    assert not again.is_error


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


def test_resolve_ranks_names_in_the_callers_language_first(tmp_path: Path) -> None:
    # Two entities share the name "Bank", one in German, one in English: the caller's language decides.
    graph = tmp_path / "banks.ttl"
    graph.write_text(
        "@prefix ex: <http://example.org/b/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        'ex:geld a ex:Institution ; rdfs:label "Bank"@de .\nex:river a ex:Institution ; rdfs:label "Bank"@en .\n',
        encoding="utf-8",
    )
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(f'default_source = "banks"\n[sources.banks]\ndata = ["{graph}"]\n', encoding="utf-8")
    env = {"SAGA_CATALOG": str(catalog), "SAGA_SURVEY_DIR": str(tmp_path / "cache")}

    async def calls() -> None:
        async with stdio_session(env=env) as session:
            listed = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert "language" in listed["kg_resolve_entity"].input_schema["properties"]
            for language, first in (("de", "geld"), ("en", "river")):
                got = await session.call_tool("kg_resolve_entity", {"text": "Bank", "language": language})
                assert not got.is_error, text(got)
                assert got.structured_content is not None
                assert got.structured_content["candidates"][0]["iri"] == f"http://example.org/b/{first}", language
            bad = await session.call_tool("kg_resolve_entity", {"text": "Bank", "language": "de; DROP"})
            assert bad.is_error

    asyncio.run(calls())

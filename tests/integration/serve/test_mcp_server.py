"""``saga mcp`` through the official MCP Python client, over stdio and over streamable HTTP."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.types import CallToolResult

from saga_kgqa.config.settings import example_graph_path
from tests.support.http_servers import SAGA, server_env
from tests.support.mcp_servers import SOURCE_TOOLS, http_server, http_session, stdio_session

EX = "PREFIX ex: <http://example.org/space/> "
TYPED_QUERY = EX + "SELECT ?x WHERE { ?x a ex:Astronaut }"
#: ex:launchDate's domain is ex:Mission: on an astronaut it can never match.
CONFLICT_QUERY = EX + "SELECT ?d WHERE { ?x ex:launchDate ?d }"
SAGA_TOOLS = {"kg_search", "kg_lookup", "kg_patterns", "kg_examples", "kg_execute"}
QUESTION = "Which missions did Jim Lovell fly?"

Body = Callable[[ClientSession], Awaitable[None]]


def on_stdio(body: Body, args: list[str] | None = None, env: dict[str, str] | None = None) -> None:
    async def main() -> None:
        async with stdio_session(args, env) as session:
            await body(session)

    asyncio.run(main())


def on_http(body: Body, args: list[str] | None = None, env: dict[str, str] | None = None) -> None:
    with http_server(args, env) as url:

        async def main() -> None:
            async with http_session(url) as session:
                await body(session)

        asyncio.run(main())


TRANSPORTS = {"stdio": on_stdio, "http": on_http}


def text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


async def every_tool(session: ClientSession) -> None:
    listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(listed) == SAGA_TOOLS | SOURCE_TOOLS  # no model configured: no ask
    for tool in listed.values():
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.annotations.open_world_hint is False  # the example graph is local
        assert tool.output_schema is not None and "source" in tool.output_schema["properties"]
        assert "example" in tool.description and "retry" in tool.description
    found = await session.call_tool("kg_search", {"text": "Jim Lovell"})
    assert not found.is_error
    assert found.structured_content is not None
    assert found.structured_content["hits"][0]["id"] == "ex:JimLovell"
    assert "ex:JimLovell" in text(found)
    looked = await session.call_tool("kg_lookup", {"entity": "ex:JimLovell"})
    assert looked.structured_content is not None and looked.structured_content["types"] == ["ex:Astronaut"]
    assert "ex:employer" in {p["id"] for p in looked.structured_content["properties"]}
    ranked = await session.call_tool("kg_patterns", {"entity": "ex:JimLovell", "question": QUESTION, "top_n": 3})
    assert not ranked.is_error, text(ranked)
    assert ranked.structured_content is not None and ranked.structured_content["types"] == ["ex:Astronaut"]
    shown = ranked.structured_content["patterns"]
    assert len(shown) == 3 and {"property": "ex:crewMember", "label": "crew member", "direction": "in"}.items() <= (
        next(p for p in shown if p["property"] == "ex:crewMember").items()
    )
    assert "Patterns of ex:JimLovell ranked for the question (top 3 of" in text(ranked)
    assert "?subject 'crew member' (ex:crewMember) 'Jim Lovell' (ex:JimLovell)" in text(ranked)
    example = await session.call_tool("kg_examples", {"property": "ex:crewMember"})
    assert example.structured_content is not None and example.structured_content["found"] is True
    assert example.structured_content["examples"], text(example)
    ran = await session.call_tool(
        "kg_execute", {"sparql": EX + 'SELECT ?m WHERE { ?m ex:crewMember/ex:name "Jim Lovell" } ORDER BY ?m'}
    )
    assert ran.structured_content is not None and ran.structured_content["status"] == "ok", text(ran)
    missions = [row["m"]["value"] for row in ran.structured_content["rows"]]
    assert {row["m"]["kind"] for row in ran.structured_content["rows"]} == {"iri"}
    assert "http://example.org/space/Apollo13" in missions


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_lists_and_calls_every_tool(transport: str) -> None:
    TRANSPORTS[transport](every_tool)


async def bad_arguments(session: ClientSession) -> None:
    unknown = await session.call_tool("kg_search", {"text": "Apollo", "source": "elsewhere"})
    assert unknown.is_error and "configured sources: example" in text(unknown) and "Hint" in text(unknown)
    missing = await session.call_tool("kg_lookup", {})
    assert missing.is_error and "entity" in text(missing)
    unasked = await session.call_tool("kg_patterns", {"entity": "ex:JimLovell"})
    assert unasked.is_error and "question" in text(unasked)
    not_an_id = await session.call_tool("kg_patterns", {"entity": "Jim Lovell", "question": QUESTION})
    assert not_an_id.is_error and "Hint" in text(not_an_id), text(not_an_id)
    too_many = await session.call_tool("kg_patterns", {"entity": "ex:JimLovell", "question": QUESTION, "top_n": 500})
    assert too_many.is_error and "top_n" in text(too_many)
    rejected = await session.call_tool("kg_execute", {"sparql": "DELETE WHERE { ?s ?p ?o }"})
    assert rejected.is_error and "[REJECTED]" in text(rejected)
    assert rejected.structured_content is not None and rejected.structured_content["status"] == "rejected"
    # The server survives all of it.
    again = await session.call_tool("kg_search", {"text": "Apollo"})
    assert not again.is_error


def test_bad_arguments_are_tool_errors_and_the_server_goes_on() -> None:
    on_stdio(bad_arguments)


async def capped(session: ClientSession) -> None:
    result = await session.call_tool("kg_execute", {"sparql": "SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 300"})
    assert result.structured_content is not None and result.structured_content["status"] == "ok"
    assert len(text(result)) <= 700
    assert len(json.dumps(result.structured_content)) <= 600
    assert result.structured_content["truncated"] is True and result.structured_content["row_count"] == 300
    ranked = await session.call_tool("kg_patterns", {"entity": "ex:Apollo11", "question": "Who flew Apollo 11?"})
    assert ranked.structured_content is not None and not ranked.is_error, text(ranked)
    assert len(text(ranked)) <= 700 and len(json.dumps(ranked.structured_content)) <= 600
    assert ranked.structured_content["truncated"] is True and ranked.structured_content["patterns"]


def test_results_are_capped() -> None:
    on_stdio(capped, ["--max-chars", "600"])


def test_theta_is_carried_between_calls_of_one_session_and_not_to_another() -> None:
    seen: dict[str, Any] = {}

    async def first(session: ClientSession) -> None:
        typed = await session.call_tool("kg_execute", {"sparql": TYPED_QUERY})
        assert typed.structured_content is not None and typed.structured_content["status"] == "ok"
        blocked = await session.call_tool("kg_execute", {"sparql": CONFLICT_QUERY})
        seen["blocked"] = blocked

    async def fresh(session: ClientSession) -> None:
        seen["fresh"] = await session.call_tool("kg_execute", {"sparql": CONFLICT_QUERY})

    with http_server() as url:

        async def main() -> None:
            async with http_session(url) as session:
                await first(session)
            async with http_session(url) as session:
                await fresh(session)

        asyncio.run(main())
    blocked = seen["blocked"]
    assert blocked.structured_content["status"] == "blocked", text(blocked)
    assert "[BLOCKED]" in text(blocked) and "(from earlier steps)" in text(blocked)
    assert blocked.structured_content["blocked"][0]["pattern"] == "?x ex:launchDate ?d"
    # Another session has learnt nothing: the same query runs (and finds the launch dates).
    fresh_result = seen["fresh"]
    assert fresh_result.structured_content["status"] == "ok", text(fresh_result)
    assert fresh_result.structured_content["row_count"] > 0


def test_a_failing_endpoint_is_an_error_payload_that_names_only_the_source(tmp_path: Path) -> None:
    index = tmp_path / "index.json"
    built = subprocess.run(
        [SAGA, "index", "build", "--out", str(index), "-d", str(example_graph_path())],
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}/sparql"
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(f'[sources.down]\nendpoint = "{endpoint}"\nschema_index = "{index}"\n', encoding="utf-8")

    async def body(session: ClientSession) -> None:
        listed = (await session.list_tools()).tools
        # Every tool that reads the graph reaches the remote endpoint; categories read only the catalog.
        reaching = [tool for tool in listed if tool.name != "kg_catalog_categories"]
        assert all(tool.annotations is not None and tool.annotations.open_world_hint for tool in reaching)
        for name, arguments in (
            ("kg_execute", {"sparql": "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"}),
            ("kg_search", {"text": "Jim"}),
            ("kg_resolve_entity", {"text": "Jim"}),
            ("kg_expand_entity", {"entity": "<http://example.org/space/JimLovell>"}),
        ):
            result = await session.call_tool(name, arguments)
            assert result.is_error, name
            assert result.structured_content is not None
            error = result.structured_content["error"]
            assert error["kind"] == "EndpointUnavailable" and error["retryable"] is True, error
            assert endpoint not in text(result) and endpoint not in error["message"]
            assert "source 'down'" in error["message"]

    on_stdio(body, env={"SAGA_CATALOG": str(catalog)})


def test_patterns_hide_what_lookup_hides(tmp_path: Path) -> None:
    # ex:launchDate's domain is ex:Mission: on the astronaut, lookup and patterns both hide it.
    extra = tmp_path / "extra.ttl"
    extra.write_text(
        "@prefix ex: <http://example.org/space/> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        'ex:JimLovell ex:launchDate "1970-04-11"^^xsd:date .\n',
        encoding="utf-8",
    )
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(f'[sources.space]\ndata = ["{example_graph_path()}", "{extra}"]\n', encoding="utf-8")
    seen: dict[str, CallToolResult] = {}

    async def body(session: ClientSession) -> None:
        seen["lookup"] = await session.call_tool("kg_lookup", {"entity": "ex:JimLovell"})
        seen["patterns"] = await session.call_tool("kg_patterns", {"entity": "ex:JimLovell", "question": "When?"})

    on_stdio(body, env={"SAGA_CATALOG": str(catalog)})
    looked, ranked = seen["lookup"].structured_content, seen["patterns"].structured_content
    assert looked is not None and ranked is not None, text(seen["patterns"])
    assert "ex:launchDate" in looked["hidden"] and ranked["hidden"] == ["ex:launchDate"]
    assert "ex:launchDate" not in {p["property"] for p in ranked["patterns"]}
    assert "patterns hidden: their domain or range conflicts" in text(seen["patterns"])

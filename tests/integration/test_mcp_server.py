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

from saga_kgqa.settings import example_graph_path
from tests.support.http_servers import SAGA, server_env
from tests.support.mcp_servers import SOURCE_TOOLS, http_server, http_session, stdio_session

EX = "PREFIX ex: <http://example.org/space/> "
TYPED_QUERY = EX + "SELECT ?x WHERE { ?x a ex:Astronaut }"
#: ex:launchDate's domain is ex:Mission: on an astronaut it can never match.
CONFLICT_QUERY = EX + "SELECT ?d WHERE { ?x ex:launchDate ?d }"
SAGA_TOOLS = {"search", "lookup", "patterns", "examples", "execute"}
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
        assert tool.annotations is not None and tool.annotations.readOnlyHint is True
        assert tool.annotations.openWorldHint is False  # the example graph is local
        assert tool.outputSchema is not None and "source" in tool.outputSchema["properties"]
        assert "example" in tool.description and "retry" in tool.description
    found = await session.call_tool("search", {"text": "Jim Lovell"})
    assert not found.isError
    assert found.structuredContent is not None
    assert found.structuredContent["hits"][0]["id"] == "ex:JimLovell"
    assert "ex:JimLovell" in text(found)
    looked = await session.call_tool("lookup", {"entity": "ex:JimLovell"})
    assert looked.structuredContent is not None and looked.structuredContent["types"] == ["ex:Astronaut"]
    assert "ex:employer" in {p["id"] for p in looked.structuredContent["properties"]}
    ranked = await session.call_tool("patterns", {"entity": "ex:JimLovell", "question": QUESTION, "top_n": 3})
    assert not ranked.isError, text(ranked)
    assert ranked.structuredContent is not None and ranked.structuredContent["types"] == ["ex:Astronaut"]
    shown = ranked.structuredContent["patterns"]
    assert len(shown) == 3 and {"property": "ex:crewMember", "label": "crew member", "direction": "in"}.items() <= (
        next(p for p in shown if p["property"] == "ex:crewMember").items()
    )
    assert "Patterns of ex:JimLovell ranked for the question (top 3 of" in text(ranked)
    assert "?subject 'crew member' (ex:crewMember) 'Jim Lovell' (ex:JimLovell)" in text(ranked)
    example = await session.call_tool("examples", {"property": "ex:crewMember"})
    assert example.structuredContent is not None and example.structuredContent["found"] is True
    assert example.structuredContent["examples"], text(example)
    ran = await session.call_tool(
        "execute", {"sparql": EX + 'SELECT ?m WHERE { ?m ex:crewMember/ex:name "Jim Lovell" } ORDER BY ?m'}
    )
    assert ran.structuredContent is not None and ran.structuredContent["status"] == "ok", text(ran)
    missions = [row["m"] for row in ran.structuredContent["rows"]]
    assert "http://example.org/space/Apollo13" in missions


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_lists_and_calls_every_tool(transport: str) -> None:
    TRANSPORTS[transport](every_tool)


async def bad_arguments(session: ClientSession) -> None:
    unknown = await session.call_tool("search", {"text": "Apollo", "source": "elsewhere"})
    assert unknown.isError and "configured sources: example" in text(unknown) and "Hint" in text(unknown)
    missing = await session.call_tool("lookup", {})
    assert missing.isError and "entity" in text(missing)
    unasked = await session.call_tool("patterns", {"entity": "ex:JimLovell"})
    assert unasked.isError and "question" in text(unasked)
    not_an_id = await session.call_tool("patterns", {"entity": "Jim Lovell", "question": QUESTION})
    assert not_an_id.isError and "Hint" in text(not_an_id), text(not_an_id)
    too_many = await session.call_tool("patterns", {"entity": "ex:JimLovell", "question": QUESTION, "top_n": 500})
    assert too_many.isError and "top_n" in text(too_many)
    rejected = await session.call_tool("execute", {"sparql": "DELETE WHERE { ?s ?p ?o }"})
    assert rejected.isError and "[REJECTED]" in text(rejected)
    assert rejected.structuredContent is not None and rejected.structuredContent["status"] == "rejected"
    # The server survives all of it.
    again = await session.call_tool("search", {"text": "Apollo"})
    assert not again.isError


def test_bad_arguments_are_tool_errors_and_the_server_goes_on() -> None:
    on_stdio(bad_arguments)


async def capped(session: ClientSession) -> None:
    result = await session.call_tool("execute", {"sparql": "SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 300"})
    assert result.structuredContent is not None and result.structuredContent["status"] == "ok"
    assert len(text(result)) <= 700
    assert len(json.dumps(result.structuredContent)) <= 600
    assert result.structuredContent["truncated"] is True and result.structuredContent["row_count"] == 300
    ranked = await session.call_tool("patterns", {"entity": "ex:Apollo11", "question": "Who flew Apollo 11?"})
    assert ranked.structuredContent is not None and not ranked.isError, text(ranked)
    assert len(text(ranked)) <= 700 and len(json.dumps(ranked.structuredContent)) <= 600
    assert ranked.structuredContent["truncated"] is True and ranked.structuredContent["patterns"]


def test_results_are_capped() -> None:
    on_stdio(capped, ["--max-chars", "600"])


def test_theta_is_carried_between_calls_of_one_session_and_not_to_another() -> None:
    seen: dict[str, Any] = {}

    async def first(session: ClientSession) -> None:
        typed = await session.call_tool("execute", {"sparql": TYPED_QUERY})
        assert typed.structuredContent is not None and typed.structuredContent["status"] == "ok"
        blocked = await session.call_tool("execute", {"sparql": CONFLICT_QUERY})
        seen["blocked"] = blocked

    async def fresh(session: ClientSession) -> None:
        seen["fresh"] = await session.call_tool("execute", {"sparql": CONFLICT_QUERY})

    with http_server() as url:

        async def main() -> None:
            async with http_session(url) as session:
                await first(session)
            async with http_session(url) as session:
                await fresh(session)

        asyncio.run(main())
    blocked = seen["blocked"]
    assert blocked.structuredContent["status"] == "blocked", text(blocked)
    assert "[BLOCKED]" in text(blocked) and "(from earlier steps)" in text(blocked)
    assert blocked.structuredContent["blocked"][0]["pattern"] == "?x ex:launchDate ?d"
    # Another session has learnt nothing: the same query runs (and finds the launch dates).
    fresh_result = seen["fresh"]
    assert fresh_result.structuredContent["status"] == "ok", text(fresh_result)
    assert fresh_result.structuredContent["row_count"] > 0


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
        reaching = [tool for tool in listed if tool.name != "catalog_categories"]
        assert all(tool.annotations is not None and tool.annotations.openWorldHint for tool in reaching)
        for name, arguments in (
            ("execute", {"sparql": "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"}),
            ("search", {"text": "Jim"}),
            ("resolve_entity", {"text": "Jim"}),
            ("expand_entity", {"entity": "<http://example.org/space/JimLovell>"}),
        ):
            result = await session.call_tool(name, arguments)
            assert result.isError, name
            assert result.structuredContent is not None
            error = result.structuredContent["error"]
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
        seen["lookup"] = await session.call_tool("lookup", {"entity": "ex:JimLovell"})
        seen["patterns"] = await session.call_tool("patterns", {"entity": "ex:JimLovell", "question": "When?"})

    on_stdio(body, env={"SAGA_CATALOG": str(catalog)})
    looked, ranked = seen["lookup"].structuredContent, seen["patterns"].structuredContent
    assert looked is not None and ranked is not None, text(seen["patterns"])
    assert "ex:launchDate" in looked["hidden"] and ranked["hidden"] == ["ex:launchDate"]
    assert "ex:launchDate" not in {p["property"] for p in ranked["patterns"]}
    assert "patterns hidden: their domain or range conflicts" in text(seen["patterns"])

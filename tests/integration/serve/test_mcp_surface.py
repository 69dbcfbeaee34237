"""The MCP surface through the SDK's own 2.x client, in both protocol eras: 2026-07-28 and the 2025-11-25 handshake.

Version, capabilities with content (resources, prompts, completions), JSON-RPC error codes,
typed terms in structured content, and a compact ``tools/list``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, PromptReference

import saga_kgqa
from saga_kgqa.config.settings import example_graph_path
from tests.support.http_servers import SAGA, server_env
from tests.support.mcp_servers import http_server

#: The client's negotiation: "auto" probes ``server/discover`` (2026-07-28); "legacy" does the 2025-11-25 handshake.
MODES = {"auto": "2026-07-28", "legacy": "2025-11-25"}
Body = Callable[[Client], Awaitable[None]]


def on(transport: str, mode: str, body: Body, env: dict[str, str] | None = None) -> None:
    async def main(target: str | StdioServerParameters) -> None:
        async with Client(target, mode=mode) as client:  # type: ignore[arg-type]
            await body(client)

    if transport == "stdio":
        asyncio.run(main(StdioServerParameters(command=SAGA, args=["mcp"], env=server_env(env))))
        return
    with http_server(env=env) as url:
        asyncio.run(main(url))


async def surface(client: Client) -> None:
    assert client.server_info is not None, client.protocol_version
    assert client.server_info.name == "saga-kgqa" and client.server_info.version == saga_kgqa.__version__
    caps = client.server_capabilities
    # tools/list is made once per protocol version and shared: a second listing says the same.
    listed = [(await client.list_tools()).model_dump(mode="json", by_alias=True) for _ in range(2)]
    assert listed[0] == listed[1] and listed[0]["tools"]
    assert caps.tools is not None and caps.resources is not None and caps.prompts is not None
    assert caps.completions is not None and caps.logging is None
    # Resources: the catalog and each source's schema summary, with content.
    uris = {str(r.uri) for r in (await client.list_resources()).resources}
    assert uris == {"saga://catalog", "saga://sources/example/summary"}
    catalog = (await client.read_resource("saga://catalog")).contents[0]
    assert "example" in catalog.text  # type: ignore[union-attr]
    summary = (await client.read_resource("saga://sources/example/summary")).contents[0]
    assert "ex:Astronaut" in summary.text  # type: ignore[union-attr]
    with pytest.raises(MCPError) as unknown_resource:
        await client.read_resource("saga://sources/nowhere/summary")
    assert unknown_resource.value.error.code == INVALID_PARAMS
    # A prompt that starts a grounded question; an unknown prompt is invalid params, not code 0.
    (prompt,) = (await client.list_prompts()).prompts
    assert prompt.name == "grounded_question"
    got = await client.get_prompt("grounded_question", {"question": "Who flew Apollo 13?", "source": "example"})
    said = got.messages[0].content.text  # type: ignore[union-attr]
    assert "Who flew Apollo 13?" in said and "kg_search" in said and 'source="example"' in said
    with pytest.raises(MCPError) as unknown_prompt:
        await client.get_prompt("nothing_here", {})
    assert unknown_prompt.value.error.code == INVALID_PARAMS
    with pytest.raises(MCPError) as bad_source:
        await client.get_prompt("grounded_question", {"question": "q", "source": "nowhere"})
    assert bad_source.value.error.code == INVALID_PARAMS
    # Completions of source names.
    done = await client.complete(
        PromptReference(type="ref/prompt", name="grounded_question"), {"name": "source", "value": "ex"}
    )
    assert done.completion.values == ["example"]
    # Typed terms: IRIs, typed literals and language literals are told apart.
    ran = await client.call_tool(
        "kg_execute",
        {
            "sparql": "PREFIX ex: <http://example.org/space/> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> "
            "SELECT ?m ?d ?l WHERE { ?m ex:launchDate ?d . OPTIONAL { ?m rdfs:label ?l } } LIMIT 3"
        },
    )
    assert ran.structured_content is not None, ran
    row = ran.structured_content["rows"][0]
    assert row["m"]["kind"] == "iri" and row["m"]["text"] == f"<{row['m']['value']}>"
    assert row["d"]["kind"] == "literal" and row["d"]["datatype"] == "http://www.w3.org/2001/XMLSchema#date"


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", MODES)
def test_the_surface_in_both_protocol_eras(transport: str, mode: str) -> None:
    async def body(client: Client) -> None:
        assert client.protocol_version == MODES[mode]
        await surface(client)

    on(transport, mode, body)


def test_a_block_on_a_property_the_graph_lacks_is_structured() -> None:
    async def body(client: Client) -> None:
        blocked = await client.call_tool(
            "kg_execute", {"sparql": "PREFIX ex: <http://example.org/space/> SELECT ?x WHERE { ?x ex:flewOnn ?m }"}
        )
        structured = blocked.structured_content
        assert structured is not None and structured["status"] == "blocked", blocked
        (item,) = structured["blocked"]
        assert item["kind"] == "matches_nothing" and "ex:flewOnn" in item["pattern"] and item["reason"]

    on("stdio", "auto", body)


def test_tools_list_stays_compact_with_many_sources(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.toml"
    lines = ['default_source = "s00"']
    for i in range(60):
        lines.append(
            f'[sources.s{i:02d}]\ndata = ["{example_graph_path()}"]\ntitle = "Source {i} about space missions"\n'
            f'description = "{"A long description of what this graph holds. " * 6}"'
        )
    catalog.write_text("\n".join(lines), encoding="utf-8")
    sizes: dict[str, int] = {}

    async def body(client: Client) -> None:
        tools = (await client.list_tools()).tools
        listed = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
        sizes["tools_list"] = len(json.dumps(listed, separators=(",", ":")))  # as on the wire
        sizes["tools"] = len(tools)
        assert all(t.name.startswith("kg_") for t in tools)

    on("stdio", "auto", body, {"SAGA_CATALOG": str(catalog)})
    # 74 KB for 12 tools before (issue 21), about 4.3 KB a tool uncompacted with 60 sources.
    assert sizes["tools_list"] < 2_800 * sizes["tools"], sizes

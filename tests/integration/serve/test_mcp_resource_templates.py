"""``saga mcp``'s resource template ``saga://sources/{name}/summary``, through the official client (issue 43).

Hosts list templates to offer "fill in a name", complete the name from the catalog, and read the result;
a name outside the operator's catalog (another name, a URL, a path) is refused as invalid params, the
refusal capped and naming the known sources.
"""

from __future__ import annotations

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, ResourceTemplateReference

from tests.integration.serve.test_mcp_surface import MODES, on

TEMPLATE = "saga://sources/{name}/summary"


async def templates(client: Client) -> None:
    listed = (await client.list_resource_templates()).resource_templates
    assert [t.uri_template for t in listed] == [TEMPLATE]
    assert listed[0].mime_type == "text/markdown" and "example" in (listed[0].description or "")
    # The name completes to the catalog's sources.
    done = await client.complete(
        ResourceTemplateReference(type="ref/resource", uri=TEMPLATE), {"name": "name", "value": "ex"}
    )
    assert done.completion.values == ["example"]
    nothing = await client.complete(
        ResourceTemplateReference(type="ref/resource", uri=TEMPLATE), {"name": "name", "value": "zz"}
    )
    assert nothing.completion.values == []
    # A known name reads its summary; anything else is refused before any work, names only.
    summary = (await client.read_resource("saga://sources/example/summary")).contents[0]
    assert "ex:Astronaut" in summary.text  # type: ignore[union-attr]
    for name in ("nowhere", "http%3A%2F%2F127.0.0.1%3A9%2Fsparql", "x" * 500):
        with pytest.raises(MCPError) as refused:
            await client.read_resource(f"saga://sources/{name}/summary")
        assert refused.value.error.code == INVALID_PARAMS, name
        message = refused.value.error.message
        assert "example" in message and len(message) < 300, message
    # A path-like name is refused by the SDK's template path safety before the template's function runs.
    with pytest.raises(MCPError) as traversal:
        await client.read_resource("saga://sources/..%2F..%2Fetc%2Fpasswd/summary")
    assert traversal.value.error.code == INVALID_PARAMS


@pytest.mark.parametrize("mode", MODES)
def test_the_summary_template_is_listed_completed_and_guarded(mode: str) -> None:
    async def body(client: Client) -> None:
        assert client.protocol_version == MODES[mode]
        await templates(client)

    on("stdio", mode, body)

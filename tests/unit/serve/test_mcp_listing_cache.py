"""``tools/list`` is compacted once per tool set and protocol version, then shared (issue 38: memory at N = 64)."""

from __future__ import annotations

import asyncio
import copy
from types import SimpleNamespace
from typing import Any

from saga_kgqa.serve.mcp.middleware import CompactListing


def wire(version: str, tools: list[object]) -> dict[str, Any]:
    """What the SDK hands the middleware: its wire dict, titles and all."""
    listed = [
        {
            "name": f"kg_t{n}",
            "inputSchema": {"type": "object", "title": "In", "properties": {"q": {"type": "string", "title": "Q"}}},
            "outputSchema": {"type": "object", "title": "Out", "description": "doc"},
        }
        for n, _ in enumerate(tools)
    ]
    return {"tools": listed, "_meta": {"version": version}}


def test_the_listing_is_made_once_per_tool_set_and_version_and_shared() -> None:
    tools: list[object] = [object(), object()]
    server: Any = SimpleNamespace(_tool_manager=SimpleNamespace(list_tools=lambda: list(tools)))
    listing = CompactListing(server)
    made: list[str] = []

    async def ask(version: str) -> Any:
        async def call_next(ctx: Any) -> Any:
            made.append(ctx.protocol_version)
            return wire(ctx.protocol_version, tools)

        return await listing.reply(SimpleNamespace(protocol_version=version), call_next)

    async def main() -> None:
        first = await ask("2025-11-25")
        kept = copy.deepcopy(first)
        assert first["tools"][0]["inputSchema"] == {"type": "object", "properties": {"q": {"type": "string"}}}
        assert first["tools"][0]["outputSchema"] == {"type": "object"}  # compact: no titles, no descriptions
        assert await ask("2025-11-25") is first and made == ["2025-11-25"]  # shared, not remade
        modern = await ask("2026-07-28")  # the SDK shapes each version's wire form: made for it too
        assert modern["_meta"] == {"version": "2026-07-28"} and made == ["2025-11-25", "2026-07-28"]
        tools.append(object())  # another tool set: made again
        third = await ask("2025-11-25")
        assert len(third["tools"]) == 3 and len(made) == 3
        assert first == kept  # nothing wrote into the shared reply

    asyncio.run(main())


def test_without_the_sdk_s_tool_registry_every_listing_is_made() -> None:
    listing = CompactListing(SimpleNamespace())  # type: ignore[arg-type]
    calls: list[int] = []

    async def call_next(ctx: Any) -> Any:
        calls.append(1)
        return wire("v", [object()])

    async def main() -> None:
        for _ in range(2):
            await listing.reply(SimpleNamespace(protocol_version="v"), call_next)  # type: ignore[arg-type]

    asyncio.run(main())
    assert len(calls) == 2

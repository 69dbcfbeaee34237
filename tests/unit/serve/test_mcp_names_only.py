"""Source names only, and validation errors sanitised (issue 38 build point 5; faults AH5, AH6).

An MCP caller picks sources by name: no structured field may name the endpoint (the text
already named the source), and a mistyped or over-long argument is refused with the field
and the rule, echoing at most a short sanitised prefix of what was sent (pydantic's own
message echoed the input and a link to its documentation).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult

from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.schema.survey_cache import forget_surveys
from saga_kgqa.serve.mcp.server import build_server
from saga_kgqa.serve.mcp.tooling import ToolHost
from saga_kgqa.serve.named_sources import NamedSources

#: A port nothing listens on: every probe is refused at once.
DOWN = "http://127.0.0.1:9/sparql/path"


def _text(result: CallToolResult) -> str:
    return " ".join(block.text for block in result.content if block.type == "text")


def _calls(catalog: Catalog, calls: list[tuple[str, dict[str, Any]]]) -> list[CallToolResult]:
    server = build_server(ToolHost(NamedSources(catalog)))

    async def main() -> list[CallToolResult]:
        async with Client(server) as session:
            return [await session.call_tool(name, arguments) for name, arguments in calls]

    return asyncio.run(main())


def test_the_structured_coverage_names_the_source_never_its_endpoint(tmp_path: Path) -> None:
    forget_surveys()
    catalog = Catalog(sources={"down": SourceRecord(name="down", endpoint=DOWN)}, default_source="down")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SAGA_SURVEY_DIR", str(tmp_path / "cache"))
        (summary,) = _calls(catalog, [("kg_source_summary", {})])
    forget_surveys()
    structured = json.dumps(summary.structured_content)
    assert summary.structured_content is not None and summary.structured_content["coverage"]
    assert "source 'down'" in structured  # the failure is still said, by name
    for channel in (structured, _text(summary)):
        assert "127.0.0.1:9" not in channel and "/sparql/path" not in channel, channel


@pytest.mark.parametrize(
    ("arguments", "field", "rule"),
    [
        ({"text": "A" * 5000}, "text", "at most 300 characters"),
        ({"text": 12}, "text", "valid string"),
        ({"text": "<script>x</script>" + "B" * 400}, "text", "at most 300 characters"),
    ],
)
def test_a_validation_error_names_the_field_and_rule_not_the_input(
    arguments: dict[str, Any], field: str, rule: str
) -> None:
    catalog = Catalog(sources={"down": SourceRecord(name="down", endpoint=DOWN)}, default_source="down")
    (result,) = _calls(catalog, [("kg_search", arguments)])
    text = _text(result)
    assert result.is_error
    assert text.startswith("invalid argument") and f"{field}:" in text and rule in text, text
    for raw in ("validation error", "input_value", "pydantic", "type=", "<script>", "A" * 25, "B" * 25):
        assert raw not in text, text
    assert len(text) < 400

"""``kg_ask`` asks back (issue 37 point 5) with the official MCP SDK client: a client that declares elicitation is
asked which 'John Smith' is meant and its choice (the second candidate) becomes the final query's subject; a client
without elicitation gets ``needs_clarification`` with the candidates and answers by calling again with ``choice``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import mcp.types as types

from tests.conftest import REPO_ROOT
from tests.support.ambiguous import EX, QUESTION, write_ambiguous
from tests.support.mcp_servers import stdio_session

SCRIPT = [
    json.dumps({"answer_type_label": "city", "answer_type_id": "ex:City"}),
    {"tool": "search", "args": {"text": "John Smith"}},
    # The model writes the query for the entity the observation says the user chose.
    {
        "tool": "execute",
        "args": {"sparql": f"PREFIX ex: <{EX}> SELECT ?city WHERE {{ {{chosen}} ex:bornIn ?city }}"},
        "chosen": True,
    },
    {"tool": "stop"},
]


def _env(tmp_path: Path) -> dict[str, str]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    return {
        "SAGA_MODEL_FACTORY": "tests.support.studio_models:scripted_factory",
        "SAGA_TEST_SCRIPT": str(script),
        "SAGA_DATA": str(write_ambiguous(tmp_path)),
        "PYTHONPATH": str(REPO_ROOT),
    }


def _city(chosen_id: str) -> str:
    return EX + ("leeds" if "painter" in chosen_id else "houston")


def test_an_eliciting_client_is_asked_and_its_second_candidate_is_the_final_query(tmp_path: Path) -> None:
    asked: list[types.ElicitRequestParams] = []

    async def choose_second(_context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        schema = params.requested_schema  # type: ignore[union-attr]
        return types.ElicitResult(action="accept", content={"choice": schema["properties"]["choice"]["enum"][1]})

    async def main() -> Any:
        async with stdio_session(env=_env(tmp_path), elicitation_callback=choose_second) as session:
            return await session.call_tool("kg_ask", {"question": QUESTION})

    result = asyncio.run(main())
    (params,) = asked
    choice = params.requested_schema["properties"]["choice"]  # type: ignore[union-attr]
    assert "Which 'John Smith' do you mean?" in params.message and len(choice["enum"]) == 2
    assert any("painter, born 1952" in title for title in choice["enumNames"])
    second = choice["enum"][1]
    structured = result.structured_content
    assert structured["status"] == "answered", result
    assert second in structured["sparql"]
    assert [row["city"]["value"] for row in structured["rows"]] == [_city(second)]


def test_a_client_without_elicitation_gets_needs_clarification_and_answers_with_choice(tmp_path: Path) -> None:
    async def main() -> tuple[Any, Any, Any]:
        async with stdio_session(env=_env(tmp_path)) as session:
            waiting = await session.call_tool("kg_ask", {"question": QUESTION})
            run_id = waiting.structured_content["run_id"]
            wrong = await session.call_tool("kg_ask", {"question": QUESTION, "run_id": run_id, "choice": "ex:nobody"})
            second = waiting.structured_content["clarification"]["candidates"][1]["id"]
            done = await session.call_tool("kg_ask", {"question": QUESTION, "run_id": run_id, "choice": second})
            return waiting, wrong, done

    waiting, wrong, done = asyncio.run(main())
    first = waiting.structured_content
    assert first["status"] == "needs_clarification" and first["sparql"] is None
    candidates = first["clarification"]["candidates"]
    assert len(candidates) == 2 and {c["fact"] for c in candidates} == {"astronaut, born 1930", "painter, born 1952"}
    assert "Which 'John Smith' do you mean?" in waiting.content[0].text
    assert wrong.structured_content["status"] == "needs_clarification"
    assert "not one of the candidates" in wrong.structured_content["clarification"]["refused"]
    second = candidates[1]["id"]
    assert done.structured_content["status"] == "answered", done
    assert second in done.structured_content["sparql"]
    assert [row["city"]["value"] for row in done.structured_content["rows"]] == [_city(second)]

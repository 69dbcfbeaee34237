"""Agents through ``saga mcp``: a third-party LangGraph ReAct agent (langchain-mcp-adapters), and the ``ask`` tool."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langchain_mcp_adapters.tools import load_mcp_tools

from tests.conftest import REPO_ROOT
from tests.support.mcp_servers import SOURCE_TOOLS, stdio_session
from tests.support.scripted_model import ScriptedChatModel, answer_type, tool_call

PV = "PREFIX pv: <http://ld.company.org/prod-vocab/>\n"
HOCH = "prodi:empl-Heinrich.Hoch%40company.org"
HOCH_IRI = "<http://ld.company.org/prod-instances/empl-Heinrich.Hoch%40company.org>"
MANAGER_QUERY = PV + f"SELECT ?m WHERE {{ {HOCH_IRI} pv:hasManager ?m }}"
KUTTNER = "prodi:empl-Waldtraud.Kuttner%40company.org"


def ck25_catalog(tmp_path: Path, data_dir: Path) -> Path:
    catalog = tmp_path / "catalog.toml"
    graph = data_dir / "text2sparql_ck25" / "prod-inst.ttl"
    catalog.write_text(
        f'default_source = "ck25"\n[sources.ck25]\ndata = ["{graph}"]\ntitle = "CK25 corporate graph"\n',
        encoding="utf-8",
    )
    return catalog


@pytest.mark.shared_data
def test_a_langgraph_react_agent_answers_a_ck25_question_through_saga_mcp(tmp_path: Path, data_dir: Path) -> None:
    model = ScriptedChatModel(
        [
            tool_call("search", text="Heinrich Hoch"),
            tool_call("lookup", entity=HOCH),
            tool_call("execute", sparql=MANAGER_QUERY),
            "Heinrich Hoch's manager is Waldtraud Kuttner.",
        ]
    )
    env = {"SAGA_CATALOG": str(ck25_catalog(tmp_path, data_dir))}

    async def main() -> dict[str, object]:
        async with stdio_session(env=env) as session:
            tools = await load_mcp_tools(session)
            agent = create_agent(model, tools)
            return await agent.ainvoke({"messages": [("user", "Who is the manager of Heinrich Hoch?")]})

    state = asyncio.run(main())
    assert model.bound_tools[:5] == ["search", "lookup", "examples", "execute", "patterns"]
    assert "resolve_entity" in model.bound_tools  # the source tools reach the host too
    observations = {m.name: m for m in state["messages"] if isinstance(m, ToolMessage)}  # type: ignore[attr-defined]
    assert set(observations) == {"search", "lookup", "execute"}
    assert HOCH in str(observations["search"].content)
    assert "pv:hasManager" in str(observations["lookup"].content)
    executed = str(observations["execute"].content)
    assert KUTTNER in executed and observations["execute"].status == "success"
    # The model saw the real observations: its third prompt holds the lookup's text.
    assert "pv:hasManager" in model.prompt_text(2)


def test_the_ask_tool_runs_the_whole_agent_with_the_operator_model(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    query = "PREFIX ex: <http://example.org/space/> SELECT ?m WHERE { ?m ex:crewMember ex:JimLovell }"
    script.write_text(
        json.dumps(
            [
                answer_type("mission", "ex:Mission"),
                {"tool": "lookup", "args": {"entity": "ex:JimLovell"}},
                {"tool": "execute", "args": {"sparql": query}},
                {"tool": "stop", "args": {}},
            ]
        ),
        encoding="utf-8",
    )
    env = {
        "SAGA_MODEL_FACTORY": "tests.support.studio_models:scripted_factory",
        "SAGA_TEST_SCRIPT": str(script),
        "PYTHONPATH": str(REPO_ROOT),
    }

    async def main() -> tuple[set[str], object]:
        async with stdio_session(env=env) as session:
            names = {tool.name for tool in (await session.list_tools()).tools}
            return names, await session.call_tool("ask", {"question": "Which missions did Jim Lovell fly?"})

    names, result = asyncio.run(main())
    assert names == {"search", "lookup", "patterns", "examples", "execute", "ask"} | SOURCE_TOOLS
    structured = result.structuredContent  # type: ignore[attr-defined]
    assert structured["status"] == "answered", result
    assert structured["sparql"] is not None and "ex:crewMember ex:JimLovell" in structured["sparql"]
    missions = {row["m"] for row in structured["rows"]}
    assert "http://example.org/space/Apollo13" in missions
    assert structured["steps"] == 2  # the lookup and the execute
    # The text shows each mission by label and short name; the structured rows keep the exact IRIs.
    shown = result.content[0].text  # type: ignore[attr-defined]
    assert "(ex:Apollo13)" in shown and "http://example.org/space/Apollo13" not in shown

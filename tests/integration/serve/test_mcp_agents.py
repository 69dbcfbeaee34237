"""Agents through ``saga mcp``: a third-party LangGraph ReAct agent (langchain-mcp-adapters), and the ``kg_ask`` tool.

langchain-mcp-adapters still caps ``mcp<2``, so it runs in its own environment
(``tests/support/mcp1_client``, with the SDK's 1.x client, protocol 2025-11-25) beside a second
server whose tools have generic names; saga itself runs on the SDK's 2.x line.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.support.http_servers import SAGA, server_env
from tests.support.mcp_servers import SOURCE_TOOLS, stdio_session
from tests.support.required import missing
from tests.support.scripted_model import answer_type

MCP1_CLIENT = REPO_ROOT / "tests" / "support" / "mcp1_client"
UV = REPO_ROOT / ".tools" / "bin" / "uv"
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


def run_mcp1_client(job: dict[str, object]) -> dict[str, object]:
    """Run ``adapters_check.py`` in the 1.x client environment (built by uv from its lock on first use)."""
    uv = str(UV) if UV.exists() else shutil.which("uv")
    if uv is None:
        missing("uv is not installed (make setup installs it)")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    run = subprocess.run(
        [
            uv,
            "run",
            "--quiet",
            "--project",
            str(MCP1_CLIENT),
            "--locked",
            "--python",
            "3.11",
            "python",
            str(MCP1_CLIENT / "adapters_check.py"),
        ],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )
    if run.returncode != 0 and "Failed to fetch" in run.stderr:
        missing(f"the 1.x client environment cannot be built offline: {run.stderr[-300:]}")
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.shared_data
def test_a_langgraph_react_agent_answers_a_ck25_question_through_saga_mcp_beside_another_server(
    tmp_path: Path, data_dir: Path
) -> None:
    job = {
        "saga": SAGA,
        "env": server_env({"SAGA_CATALOG": str(ck25_catalog(tmp_path, data_dir))}),
        "repo": str(REPO_ROOT),
        "question": "Who is the manager of Heinrich Hoch?",
        "script": [
            {"tool": "kg_search", "args": {"text": "Heinrich Hoch"}},
            {"tool": "kg_lookup", "args": {"entity": HOCH}},
            {"tool": "kg_execute", "args": {"sparql": MANAGER_QUERY}},
            "Heinrich Hoch's manager is Waldtraud Kuttner.",
        ],
    }
    report = run_mcp1_client(job)
    names = report["tools"]
    assert isinstance(names, list) and len(names) == len(set(names)), names  # no clash beside the other server
    assert {"search", "execute"} <= set(names)  # the other server's generic names...
    assert {"kg_search", "kg_lookup", "kg_execute", "kg_patterns"} <= set(names)  # ...and saga's beside them
    # The SDK's 1.x client (protocol 2025-11-25) gets saga's own version, and only capabilities with content.
    assert report["handshake"] == {
        "protocol": "2025-11-25",
        "name": "saga-kgqa",
        "version": __import__("saga_kgqa").__version__,
        "capabilities": ["completions", "prompts", "resources", "tools"],
    }
    observations = report["observations"]
    assert isinstance(observations, dict) and set(observations) == {"kg_search", "kg_lookup", "kg_execute"}
    assert HOCH in observations["kg_search"]["content"]
    assert "pv:hasManager" in observations["kg_lookup"]["content"]
    executed = observations["kg_execute"]
    assert KUTTNER in executed["content"] and executed["status"] == "success"
    # The model saw the real observations: its third prompt holds the lookup's text.
    assert "pv:hasManager" in str(report["third_prompt"])


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
            return names, await session.call_tool("kg_ask", {"question": "Which missions did Jim Lovell fly?"})

    names, result = asyncio.run(main())
    assert names == {"kg_search", "kg_lookup", "kg_patterns", "kg_examples", "kg_execute", "kg_ask"} | SOURCE_TOOLS
    structured = result.structured_content  # type: ignore[attr-defined]
    assert structured["status"] == "answered", result
    assert structured["sparql"] is not None and "ex:crewMember ex:JimLovell" in structured["sparql"]
    missions = {row["m"]["value"] for row in structured["rows"]}
    assert "http://example.org/space/Apollo13" in missions
    assert structured["steps"] == 3  # the lookup, the execute and the stop: the run's own count, as saga ask says
    # The text shows each mission by label and short name; the structured rows keep the exact IRIs.
    shown = result.content[0].text  # type: ignore[attr-defined]
    assert "(ex:Apollo13)" in shown and "http://example.org/space/Apollo13" not in shown
    # Each answer row's supporting triple rides in the structured content; the text says how many rows it covers.
    evidence = structured["evidence"]
    assert evidence["rows_supported"] == evidence["rows_checked"] >= 1
    for row in evidence["rows"]:
        (triple,) = row["triples"]
        assert triple["subject"]["value"] == structured["rows"][row["row"]]["m"]["value"]
        assert triple["object"]["value"] == "http://example.org/space/JimLovell"
    said = f"supporting triples for {evidence['rows_supported']} of the first {evidence['rows_checked']} answer rows"
    assert said in shown

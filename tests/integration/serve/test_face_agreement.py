"""Every face says what a run is the same way: its answer's columns and its step count (issue 41 point 2).

The characterisation goldens pinned a disagreement: on the same empty run MCP ``kg_ask`` said
``variables: []`` although the final query selects ``?mission`` (``saga ask --json``: ``["mission"]``), and
``steps: 1`` where ``saga ask`` said 3. Both now come from the run's final state
(:mod:`saga_kgqa.runs.final_state`): the columns of its answer and the controller steps it took. The same
scripted runs (:mod:`tests.support.characterise`) are asked through ``saga ask --json`` (in process),
``saga mcp`` over stdio and the web page's API, and each face's figures are compared with the CLI's.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app
from tests.support.characterise import RUNS, Run, run_key, scripted_env, scripted_setting
from tests.support.http_servers import saga_server
from tests.support.keyed_models import case_question
from tests.support.mcp_servers import stdio_session

#: The runs compared: the answered one and the empty one (the refused one has no query and no columns).
COMPARED = tuple(run for run in RUNS if run.name in ("answered", "empty"))


def _cli(run: Run, db: Path) -> dict[str, Any]:
    question = case_question(run.question, run_key("cli", run))
    done = CliRunner().invoke(app, ["ask", question, "--json", "--quiet", "--checkpoint-db", str(db)])
    assert done.exit_code in (0, 3), done.output
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def _mcp(env: dict[str, str]) -> dict[str, dict[str, Any]]:
    async def main() -> dict[str, dict[str, Any]]:
        replies = {}
        async with stdio_session(env=env) as session:
            for run in COMPARED:
                question = case_question(run.question, run_key("mcp", run))
                reply = await session.call_tool("kg_ask", {"question": question})
                replies[run.name] = dict(reply.structured_content or {})
        return replies

    return asyncio.run(main())


def _web_final(client: httpx.Client, run: Run) -> dict[str, Any]:
    question = case_question(run.question, run_key("web", run))
    started = client.post("/api/runs", json={"question": question, "source": "example"})
    assert started.status_code == 200, started.text
    finals = []
    with client.stream("GET", f"/api/runs/{started.json()['thread_id']}/events") as reply:
        for line in reply.iter_lines():
            if line.startswith("data: ") and json.loads(line[6:]).get("kind") == "final":
                finals.append(json.loads(line[6:]))
    assert finals, "the web run sent no final event"
    return finals[-1]


def test_columns_and_steps_agree_on_every_face(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    setting = scripted_setting(tmp_path, ["cli", "mcp", "web"])
    with scripted_env(setting, monkeypatch):
        cli = {run.name: _cli(run, tmp_path / "cli.sqlite") for run in COMPARED}
    env = dict(setting.env) | {"SAGA_CHECKPOINT_DB": str(tmp_path / "mcp.sqlite")}
    mcp = _mcp(env)
    args = ["serve", "web", "--checkpoints", str(tmp_path / "web.sqlite")]
    with saga_server(args, setting.env) as url, httpx.Client(base_url=url, timeout=120) as client:
        web = {run.name: _web_final(client, run) for run in COMPARED}
    for run in COMPARED:
        said = cli[run.name]
        assert said["answer"]["variables"] == ["mission"], run.name
        assert mcp[run.name]["status"] == web[run.name]["status"] == said["status"], run.name
        # The empty run's final query selects ?mission: its columns are the answer's, whatever the row count.
        assert mcp[run.name]["variables"] == said["answer"]["variables"], (run.name, mcp[run.name])
        assert web[run.name]["variables"] == said["answer"]["variables"], (run.name, web[run.name])
        # One step count: the controller steps the run took, as saga ask says it.
        assert mcp[run.name]["steps"] == said["summary"]["steps"], (run.name, mcp[run.name]["steps"])

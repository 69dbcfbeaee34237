"""``saga ask --source NAME --catalog FILE``: the agent gets the catalog's sources and the source tools."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT, TEST_DATA
from tests.integration.cli.test_ask_cli import clean_env
from tests.support.bridge_fixture import split_graph
from tests.support.openai_mock import MockReply, MockToolCall, serve_openai_mock

LAB = TEST_DATA / "autoschema" / "lab.trig"
L = "http://example.org/lab/"
NAMES = f'SELECT ?n WHERE {{ ?y <{L}orcid> "0000-0001-2345-6789" ; <{L}name> ?n }}'


def test_ask_on_a_named_source_grounds_over_the_catalog(tmp_path: Path) -> None:
    fixture = split_graph(LAB, tmp_path / "split", split_class=L + "Scientist", id_property=L + "orcid")
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(
        'default_source = "proteins"\n'
        f'[sources.proteins]\ndata = ["{fixture.left}"]\n'
        f'[sources.people]\ndata = ["{fixture.right}"]\n'
    )
    replies = [
        MockReply(content=json.dumps({"answer_type_label": "person", "answer_type_id": ""})),
        MockReply(tool_calls=(MockToolCall("summary", {"source": "people"}),)),
        MockReply(tool_calls=(MockToolCall("execute_on", {"request": f"people: {NAMES}"}),)),
        MockReply(tool_calls=(MockToolCall("stop", {}),)),
    ]
    with serve_openai_mock(replies) as mock:
        command = [
            sys.executable, "-m", "saga_kgqa", "ask", "Who has ORCID 0000-0001-2345-6789?", "--json", "--quiet",
            "--source", "proteins", "--catalog", str(catalog),
            "--checkpoint-db", str(tmp_path / "checkpoints.sqlite"),
        ]  # fmt: skip
        env = clean_env(SAGA_BASE_URL=mock.base_url, SAGA_MODEL="m", SAGA_SURVEY_DIR=str(tmp_path / "surveys"))
        done = subprocess.run(command, env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "answered"
    assert [row["n"] for row in result["answer"]["rows"]] == ["Alice Adler"]
    assert [a["source"] for a in result["attempts"]] == ["people"]
    offered = {tool["function"]["name"] for tool in mock.requests[1]["tools"]}
    assert {"summary", "resolve", "expand", "bridge", "execute_on"} <= offered
    assert "find_sources" not in offered

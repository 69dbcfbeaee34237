"""``saga ask --method mars`` end to end: a loopback chat-completions server, the example graph, real MiniLM ranking."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT
from tests.integration.cli.test_ask_cli import clean_env, expected_missions
from tests.support.openai_mock import MockReply, serve_openai_mock

QUESTION = "Which missions did Jim Lovell fly?"
SPARQL = (
    "PREFIX ex: <http://example.org/space/> "
    'SELECT ?mission WHERE { ?mission ex:crewMember ?a . ?a ex:name "Jim Lovell" }'
)


def test_saga_ask_method_mars_links_retrieves_reasons_verifies(tmp_path: Path) -> None:
    replies = [
        MockReply(content=json.dumps({"entities": ["Jim Lovell"]})),
        MockReply(content=f"SPARQL:\n```sparql\n{SPARQL}\n```"),
        MockReply(content="CORRECT"),
    ]
    with serve_openai_mock(replies) as mock:
        command = [
            sys.executable, "-m", "saga_kgqa", "ask", QUESTION, "--method", "mars", "--json", "--quiet",
            "--mars-top-n", "5", "--checkpoint-db", str(tmp_path / "checkpoints.sqlite"),
        ]  # fmt: skip
        env = clean_env(SAGA_BASE_URL=mock.base_url, SAGA_MODEL="gpt-oss-120b")
        done = subprocess.run(command, env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "answered" and result["final_sparql"] == SPARQL
    assert {row["mission"] for row in result["answer"]["rows"]} == expected_missions()
    _link, reason, verify = mock.requests
    reason_text = "\n".join(str(m.get("content") or "") for m in reason["messages"])
    # The patterns of the linked astronaut, top 5, with ids; the crew membership is an incoming pattern.
    assert "'Jim Lovell' (ex:JimLovell)" in reason_text and "[5] " in reason_text and "[6] " not in reason_text
    assert "?subject 'crew member' (ex:crewMember) 'Jim Lovell' (ex:JimLovell)" in reason_text
    assert (reason["temperature"], reason["max_tokens"]) == (0.0, 2048)
    assert "Result:" in "\n".join(str(m.get("content") or "") for m in verify["messages"])

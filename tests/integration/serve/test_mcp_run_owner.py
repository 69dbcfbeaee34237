"""A ``kg_ask`` run belongs to the session that started it (issue 38 build point 4; faults AH8).

Session A's ``run_id`` asked from session B resumed A's run and showed A's answer under B's
question. Now, anywhere but the session (or, on the stateless protocol, the connection) that
started it, a run id is answered exactly as one that never existed: "unknown run".
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from mcp.types import CallToolResult

from tests.conftest import REPO_ROOT
from tests.support.mcp_servers import http_server, http_session
from tests.support.scripted_model import answer_type

QUERY = "PREFIX ex: <http://example.org/space/> SELECT ?m WHERE { ?m ex:crewMember ex:JimLovell }"
QUESTION = "Which missions did Jim Lovell fly?"


def _env(tmp_path: Path) -> dict[str, str]:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                answer_type("mission", "ex:Mission"),
                {"tool": "execute", "args": {"sparql": QUERY}},
                {"tool": "stop", "args": {}},
            ]
        ),
        encoding="utf-8",
    )
    return {
        "SAGA_MODEL_FACTORY": "tests.support.slow_models:slow_scripted_factory",
        "SAGA_TEST_SCRIPT": str(script),
        "SAGA_TEST_DELAY": "0.05",
        "SAGA_CHECKPOINT_DB": str(tmp_path / "checkpoints.sqlite"),
        "PYTHONPATH": str(REPO_ROOT),
    }


def _text(result: CallToolResult) -> str:
    return " ".join(block.text for block in result.content if block.type == "text")


def test_a_run_id_from_another_session_is_an_unknown_run(tmp_path: Path) -> None:
    with http_server(env=_env(tmp_path)) as url:

        async def main() -> tuple[CallToolResult, CallToolResult, CallToolResult, CallToolResult]:
            async with http_session(url) as owner, http_session(url) as stranger:
                asked = await owner.call_tool("kg_ask", {"question": QUESTION})
                run_id = (asked.structured_content or {})["run_id"]
                stolen = await stranger.call_tool("kg_ask", {"question": "What is my answer?", "run_id": run_id})
                never = await stranger.call_tool("kg_ask", {"question": "What?", "run_id": "0123456789ab"})
                again = await owner.call_tool("kg_ask", {"question": QUESTION, "run_id": run_id})
                return asked, stolen, never, again

        asked, stolen, never, again = asyncio.run(main())
    assert (asked.structured_content or {}).get("status") == "answered", _text(asked)
    run_id = (asked.structured_content or {})["run_id"]
    assert stolen.is_error and "unknown run" in _text(stolen), _text(stolen)
    assert "Apollo" not in _text(stolen) and stolen.structured_content is None
    # Indistinguishable from a run that never existed: no oracle for guessed ids.
    assert _text(stolen).replace(run_id, "ID") == _text(never).replace("0123456789ab", "ID")
    assert not again.is_error and (again.structured_content or {}).get("resumed") is True, _text(again)

"""Replies recorded from a real local model server end in a typed outcome, never a traceback (issue 43).

``bench/real_model.py`` serves SmolLM2-135M through llama-cpp-python's server; each reply shape it showed
is kept in ``tests/data/real_model`` and replayed here through ``saga ask`` against a loopback mock of the
OpenAI API. Seen so far: ``chatml-function-calling`` answers a tool call in ``tool_calls`` *and* in the legacy
``function_call`` field, the two disagreeing (``execute:`` there, ``search`` in ``tool_calls``), with
``finish_reason: tool_calls`` and an argument that is a paragraph of invented text.
"""

from __future__ import annotations

import json
import os
import subprocess

from tests.conftest import REPO_ROOT, TEST_DATA
from tests.support.http_servers import SAGA
from tests.support.openai_mock import MockReply, serve_openai_mock

OUTCOMES = {"answered", "partial", "empty", "failed", "timed_out", "refused", "needs_clarification"}
ANSWER_TYPE = MockReply(content=json.dumps({"answer_type_label": "space mission", "answer_type_id": "ex:Mission"}))


def recorded(name: str) -> MockReply:
    return MockReply(raw=json.loads((TEST_DATA / "real_model" / name).read_text(encoding="utf-8"))["reply"])


def ask(replies: list[MockReply]) -> tuple[int, str, str]:
    with serve_openai_mock(replies) as mock:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SAGA_", "OPENAI_"))}
        env |= {"SAGA_BASE_URL": mock.base_url, "SAGA_MODEL": "smollm2", "SAGA_API_KEY": "none"}
        done = subprocess.run(
            [SAGA, "ask", "Which missions did Jim Lovell fly?", "--json", "--max-steps", "3"],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )
    return done.returncode, done.stdout, done.stderr


def test_a_tool_call_doubled_in_the_legacy_function_call_field_ends_typed() -> None:
    reply = recorded("chatml_function_calling_reply.json")
    code, out, err = ask([ANSWER_TYPE, reply, reply, reply, reply, reply])
    assert "Traceback" not in out + err, err[-3000:]
    status = json.loads(out)["status"]
    assert status in OUTCOMES, out[-2000:]
    assert code in {0, 3, 4, 5, 6, 7, 8}, (code, err[-2000:])

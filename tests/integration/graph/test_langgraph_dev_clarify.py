"""Asking back through ``langgraph dev`` and ``langgraph_sdk`` (issue 37 point 5): an ambiguous name interrupts the
run with its candidates; ``Command(resume=...)`` with the second one makes the final query use it; a stale token
and another thread's token are refused (the run keeps waiting and says why)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT
from tests.support.ambiguous import EX, QUESTION, write_ambiguous
from tests.support.langgraph_dev import langgraph_dev

pytestmark = pytest.mark.slow

ANSWER_TYPE = json.dumps({"answer_type_label": "city", "answer_type_id": "ex:City"})
SEARCH = {"tool": "search", "args": {"text": "John Smith"}}
# The model writes the query for the entity the observation says the user chose.
EXECUTE_CHOSEN = {
    "tool": "execute",
    "args": {"sparql": f"PREFIX ex: <{EX}> SELECT ?city WHERE {{ {{chosen}} ex:bornIn ?city }}"},
    "chosen": True,
}
STOP = {"tool": "stop"}


def _waiting(client: Any, thread_id: str) -> dict[str, Any]:
    (waiting,) = client.threads.get_state(thread_id)["interrupts"]
    value: dict[str, Any] = waiting["value"]
    return value


def test_an_ambiguous_name_interrupts_and_resuming_with_the_second_candidate_answers_with_it(tmp_path: Path) -> None:
    from langgraph_sdk import get_sync_client

    script = tmp_path / "script.json"
    script.write_text(json.dumps([ANSWER_TYPE, SEARCH, ANSWER_TYPE, SEARCH, EXECUTE_CHOSEN, STOP]))
    env = {
        "SAGA_MODEL_FACTORY": "tests.support.studio_models:scripted_factory",
        "SAGA_TEST_SCRIPT": str(script),
        "SAGA_DATA": str(write_ambiguous(tmp_path)),
        "PYTHONPATH": str(REPO_ROOT),
    }
    with langgraph_dev(REPO_ROOT / "langgraph.json", tmp_path, env) as server:
        client = get_sync_client(url=server.url)
        first, other = client.threads.create()["thread_id"], client.threads.create()["thread_id"]
        for thread in (first, other):
            client.runs.wait(thread, "saga", input={"question": QUESTION})
        asked, asked_other = _waiting(client, first), _waiting(client, other)
        assert asked["kind"] == "clarify" and asked["mention"] == "John Smith" and not asked["refused"]
        candidates = asked["candidates"]
        assert len(candidates) == 2 and all(c["label"] == "John Smith" and c["fact"] for c in candidates)
        assert asked["token"] != asked_other["token"]
        second = candidates[1]

        # Another thread's token, and a stale one, are refused: the run keeps waiting and says why.
        client.runs.wait(first, "saga", command={"resume": {"token": asked_other["token"], "choice": second["id"]}})
        assert "not this question's" in _waiting(client, first)["refused"]
        client.runs.wait(first, "saga", command={"resume": {"token": "stale-token", "choice": second["id"]}})
        assert "not this question's" in _waiting(client, first)["refused"]

        final = client.runs.wait(first, "saga", command={"resume": {"token": asked["token"], "choice": second["id"]}})
        assert isinstance(final, dict) and final["status"] == "answered", final
        assert second["id"] in final["final_sparql"]
        city = "leeds" if "painter" in second["iri"] else "houston"
        assert [row["city"] for row in final["answer"]["rows"]] == [EX + city]
        assert not client.threads.get_state(first)["interrupts"]

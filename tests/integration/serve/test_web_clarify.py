"""The web page's API asks back (issue 37 point 5): a run on an ambiguous name ends its events with the candidates
(``clarify``, status ``needs_clarification``, also when the run is reopened); ``POST /api/runs/{id}/choose`` with the
second candidate resumes it and its final query uses that one; a choice for a run that waits on none is refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.ambiguous import EX, QUESTION, write_ambiguous
from tests.support.outcome_faces import _environ, _events
from tests.support.studio_models import SCRIPT_ENV

SCRIPT = [
    json.dumps({"answer_type_label": "city", "answer_type_id": "ex:City"}),
    {"tool": "search", "args": {"text": "John Smith"}},
    {
        "tool": "execute",
        "args": {"sparql": f"PREFIX ex: <{EX}> SELECT ?city WHERE {{ {{chosen}} ex:bornIn ?city }}"},
        "chosen": True,
    },
    {"tool": "stop"},
]


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from starlette.testclient import TestClient

    import tests.support.studio_models as studio
    from saga_kgqa.config.catalog import Catalog
    from saga_kgqa.serve.web.app import build_app
    from saga_kgqa.serve.web.runs import WebRuns

    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    env = {
        "SAGA_MODEL_FACTORY": "tests.support.studio_models:scripted_factory",
        SCRIPT_ENV: str(script),
        "SAGA_DATA": str(write_ambiguous(tmp_path)),
    }
    monkeypatch.delenv("SAGA_CATALOG", raising=False)  # SAGA_DATA is then the one source
    studio._model = None  # this test's script, not an earlier test's model
    with _environ(env):
        runs = WebRuns(Catalog.from_env(), tmp_path / "web.sqlite")
        try:
            yield TestClient(build_app(runs))
        finally:
            runs.close()
            studio._model = None


def test_the_page_offers_the_candidates_and_a_choice_resumes_the_run_with_it(client: Any) -> None:
    thread_id = client.post("/api/runs", json={"question": QUESTION}).json()["thread_id"]
    events = _events(client, thread_id)
    (asked,) = [e for e in events if e["kind"] == "clarify"]
    assert asked["status"] == "needs_clarification" and asked["mention"] == "John Smith"
    assert not [e for e in events if e["kind"] == "final"] and "token" not in asked
    second = asked["candidates"][1]
    reopened = client.get(f"/api/runs/{thread_id}/events").text
    assert '"kind": "clarify"' in reopened and '"kind": "interrupted"' not in reopened

    refused = client.post(f"/api/runs/{thread_id}/choose", json={"choice": ""})
    assert refused.status_code == 400
    chosen = client.post(f"/api/runs/{thread_id}/choose", json={"choice": second["id"]})
    assert chosen.status_code == 200, chosen.text
    final = next(e for e in _events(client, thread_id) if e["kind"] == "final")
    assert final["status"] == "answered" and second["id"] in final["sparql"]
    city = "leeds" if "painter" in second["iri"] else "houston"
    assert [row["city"] for row in final["rows"]] == [EX + city]
    again = client.post(f"/api/runs/{thread_id}/choose", json={"choice": second["id"]})
    assert again.status_code == 409  # finished: it waits on no choice

"""The web page's HTTP rules: JSON-only run starts, the perimeter, busy answers, cancel and resume, no-model state."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from saga_kgqa.config.catalog import Catalog
from saga_kgqa.serve.perimeter import RunSlots
from saga_kgqa.serve.web.app import build_app, perimeter_for
from saga_kgqa.serve.web.runs import WebRuns
from tests.support import gated_models

GATED = "tests.support.gated_models:gated_factory"


def client(tmp_path: Path, host: str = "127.0.0.1", slots: RunSlots | None = None) -> TestClient:
    runs = WebRuns(Catalog.from_env({}), tmp_path / "checkpoints.sqlite", slots)
    app = perimeter_for("127.0.0.1").wrap(build_app(runs))
    return TestClient(app, base_url=f"http://{host}:8080")  # type: ignore[arg-type]


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    monkeypatch.setenv("SAGA_MODEL_FACTORY", GATED)
    gated_models.GATE.clear()
    try:
        yield gated_models.GATE
    finally:
        gated_models.GATE.set()  # no run is left waiting


def events(web: TestClient, thread_id: str) -> list[dict[str, object]]:
    reply = web.get(f"/api/runs/{thread_id}/events")
    return [json.loads(line[6:]) for line in reply.text.splitlines() if line.startswith("data: ")]


def test_a_run_starts_only_from_a_json_request_naming_a_known_source(tmp_path: Path, gated: threading.Event) -> None:
    web = client(tmp_path)
    form = web.post("/api/runs", content='{"question": "Who?"}', headers={"Content-Type": "text/plain"})
    assert form.status_code == 415
    unknown = web.post("/api/runs", json={"question": "Who?", "source": "elsewhere"})
    assert unknown.status_code == 400 and "configured sources: example" in unknown.json()["error"]
    assert web.post("/api/runs", json={"question": "  "}).status_code == 400
    assert web.get("/api/runs").json() == {"runs": []}  # nothing was started
    assert web.get("/api/runs/nope/events").status_code == 404
    assert web.get("/api/sources").json()["default"] == "example"


def test_a_rebinding_host_is_refused_and_the_page_carries_its_headers(tmp_path: Path) -> None:
    assert client(tmp_path, host="attacker.example").get("/").status_code == 421
    # The SDK's "127.0.0.1:*" prefix check lets this through; the shared perimeter does not.
    assert client(tmp_path).get("/", headers={"host": "127.0.0.1:1@evil.example"}).status_code == 421
    cross = client(tmp_path).post("/api/runs", json={"question": "Who?"}, headers={"origin": "https://evil.example"})
    assert cross.status_code == 403
    page = client(tmp_path).get("/")
    assert page.status_code == 200
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY" and page.headers["x-content-type-options"] == "nosniff"


def test_without_a_model_the_page_says_so_and_starts_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SAGA_MODEL_FACTORY", "SAGA_MODEL", "SAGA_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    web = client(tmp_path)
    sources = web.get("/api/sources").json()
    assert sources["model_ready"] is False and "No model is configured" in sources["no_model"]
    refused = web.post("/api/runs", json={"question": "Who flew Apollo 13?"})
    assert refused.status_code == 400 and "No model is configured" in refused.json()["error"]
    assert "--" not in refused.json()["error"]  # no command-line advice for a page user
    assert web.get("/api/runs").json() == {"runs": []}


def test_a_flood_of_runs_gets_busy_answers_beyond_the_cap_with_threads_bounded(
    tmp_path: Path, gated: threading.Event
) -> None:
    web = client(tmp_path, slots=RunSlots(total=4, per_client=4))
    threads_before = threading.active_count()
    replies = [web.post("/api/runs", json={"question": f"Question {n}?"}) for n in range(150)]
    codes = [reply.status_code for reply in replies]
    assert codes.count(200) == 4 and codes.count(429) == 146
    busy = replies[-1]
    assert busy.headers["retry-after"] == "2" and "busy" in busy.json()["error"]
    workers = [t for t in threading.enumerate() if t.name.startswith("saga-web-")]
    assert len(workers) == 4  # one worker per admitted run, none for a refused one
    # Beside them only the event loop's bounded thread pool (40) and the test client's portal.
    assert threading.active_count() <= threads_before + 4 + 40 + 2
    gated.set()
    for reply in replies[:4]:
        assert events(web, reply.json()["thread_id"])[-1] == {"kind": "end"}
    deadline = time.monotonic() + 10
    while web.post("/api/runs", json={"question": "After the flood?"}).status_code != 200:
        assert time.monotonic() < deadline, "the slots were not given back"
        time.sleep(0.05)


def test_a_cancelled_run_stops_keeps_its_checkpoint_and_resumes_to_the_end(
    tmp_path: Path, gated: threading.Event
) -> None:
    web = client(tmp_path)
    thread_id = web.post("/api/runs", json={"question": "Which missions did Jim Lovell fly?"}).json()["thread_id"]
    assert gated_models.WAITING.acquire(timeout=10)  # the run is at its first model call
    assert web.post(f"/api/runs/{thread_id}/cancel").json() == {"cancelled": True}
    gated.set()
    kinds = [event["kind"] for event in events(web, thread_id)]
    assert kinds[0] == "start" and "progress" in kinds and kinds[-2:] == ["cancelled", "end"]
    assert "final" not in kinds
    assert web.post(f"/api/runs/{thread_id}/cancel").status_code == 409  # nothing left to cancel
    # Reopened, the run says it was interrupted; resumed, it continues from its checkpoint to the end.
    resumed = web.post(f"/api/runs/{thread_id}/resume")
    assert resumed.status_code == 200, resumed.text
    after = events(web, thread_id)
    kinds = [event["kind"] for event in after]
    assert "resumed" in kinds and "final" in kinds and kinds[-1] == "end"
    assert web.post(f"/api/runs/{thread_id}/resume").status_code == 409  # finished runs are not resumed

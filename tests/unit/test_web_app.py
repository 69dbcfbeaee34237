"""The web page's HTTP rules: JSON-only run starts, loopback Host headers, typed refusals."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from saga_kgqa.serve.web import build_app
from saga_kgqa.serve.web_runs import WebRuns
from saga_kgqa.sources.catalog import Catalog


def client(tmp_path: Path, host: str = "127.0.0.1") -> TestClient:
    runs = WebRuns(Catalog.from_env({}), tmp_path / "checkpoints.sqlite")
    return TestClient(build_app(runs), base_url=f"http://{host}:8080")


def test_a_run_starts_only_from_a_json_request_naming_a_known_source(tmp_path: Path) -> None:
    web = client(tmp_path)
    form = web.post("/api/runs", content='{"question": "Who?"}', headers={"Content-Type": "text/plain"})
    assert form.status_code == 415
    unknown = web.post("/api/runs", json={"question": "Who?", "source": "elsewhere"})
    assert unknown.status_code == 400 and "configured sources: example" in unknown.json()["error"]
    assert web.post("/api/runs", json={"question": "  "}).status_code == 400
    assert web.get("/api/runs").json() == {"runs": []}  # nothing was started
    assert web.get("/api/runs/nope/events").status_code == 404
    assert web.get("/api/sources").json()["default"] == "example"


def test_a_rebinding_host_is_refused(tmp_path: Path) -> None:
    assert client(tmp_path, host="attacker.example").get("/").status_code == 400
    assert client(tmp_path).get("/").status_code == 200

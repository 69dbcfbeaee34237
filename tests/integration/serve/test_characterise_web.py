"""Characterisation of ``saga serve web`` (issue 41): one run's event stream pinned in a golden.

The page's server runs as users start it (``saga serve web --port 0``) with a catalog over the example
graph and a keyed scripted model. One answered run is started through the page's API and its event
stream followed to the end, then reopened from the checkpoint store: the event kinds in order, each
event's payload keys, and the final event's normalised payload are compared with
``tests/data/characterisation/web_events.json``; ``SAGA_UPDATE_GOLDEN=1`` rewrites it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from tests.support.characterise import RUNS, check_golden, normalise, run_key, scripted_setting
from tests.support.http_servers import saga_server
from tests.support.keyed_models import case_question


def _stream(client: httpx.Client, thread_id: str) -> list[dict[str, Any]]:
    events = []
    with client.stream("GET", f"/api/runs/{thread_id}/events") as reply:
        assert reply.status_code == 200, reply.read()
        for line in reply.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[len("data: ") :]))
    return events


def _shape(events: list[dict[str, Any]], roots: tuple[Path, ...]) -> dict[str, Any]:
    finals = [e for e in events if e.get("kind") == "final"]
    return {
        "kinds": [e.get("kind") for e in events],
        "keys": [[e.get("kind"), sorted(e)] for e in events],
        "final": normalise(finals[-1], roots) if finals else None,
    }


def test_event_stream_of_one_run_live_and_reopened(tmp_path: Path) -> None:
    setting = scripted_setting(tmp_path, ["web"])
    roots = (tmp_path,)
    answered = RUNS[0]
    args = ["serve", "web", "--checkpoints", str(tmp_path / "checkpoints.sqlite")]
    with saga_server(args, setting.env) as url, httpx.Client(base_url=url, timeout=120) as client:
        sources = client.get("/api/sources").json()
        question = case_question(answered.question, run_key("web", answered))
        started = client.post("/api/runs", json={"question": question, "source": "example"})
        assert started.status_code == 200, started.text
        thread_id = started.json()["thread_id"]
        live = _stream(client, thread_id)
        reopened = _stream(client, thread_id)
        history = client.get("/api/runs").json()
        refused = client.post("/api/runs", content=b"question=x", headers={"content-type": "text/plain"})
    check_golden(
        "web_events",
        {
            "sources": normalise(sources, roots),
            "started_keys": sorted(started.json()),
            "live": _shape(live, roots),
            "reopened": _shape(reopened, roots),
            "history_keys": [sorted(run) for run in history["runs"]],
            "not_json": {"status": refused.status_code, "body": refused.json()},
        },
    )

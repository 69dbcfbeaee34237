"""Characterisation of ``saga serve text2sparql`` (issue 41): replies pinned in a golden.

The server runs as users start it (``saga serve text2sparql --port 0``) with a catalog over the example
graph and a keyed scripted model. For an answered, an empty and a refused run, and for the requests it
turns away (unknown dataset, no question, a POST that is not JSON), the HTTP status, the headers that
carry meaning (``Saga-Outcome``, content type) and the body are compared with
``tests/data/characterisation/text2sparql.json``; ``SAGA_UPDATE_GOLDEN=1`` rewrites it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.support.characterise import RUNS, check_golden, normalise, run_key, scripted_setting
from tests.support.http_servers import saga_server
from tests.support.keyed_models import case_question

DATASET = "https://example.org/space/"
OTHER = "https://example.org/other/"
#: Headers that vary by nothing but the body's length or the clock.
UNPINNED = frozenset({"date", "content-length", "server"})


def _reply(reply: httpx.Response, roots: tuple[Path, ...]) -> dict[str, Any]:
    try:
        body: Any = reply.json()
    except ValueError:
        body = reply.text
    return {
        "status": reply.status_code,
        "headers": {k: v for k, v in sorted(reply.headers.items()) if k not in UNPINNED},
        "body": normalise(body, roots),
    }


def test_answered_empty_and_refused_replies(tmp_path: Path) -> None:
    setting = scripted_setting(tmp_path, ["text2sparql"])
    roots = (tmp_path,)
    args = ["serve", "text2sparql", "--out", str(tmp_path / "t2s.jsonl"), "--dataset", f"{DATASET}=example"]
    pinned: list[dict[str, Any]] = []
    with saga_server(args, setting.env) as url, httpx.Client(base_url=url, timeout=120) as client:
        for run in RUNS:
            question = case_question(run.question, run_key("text2sparql", run))
            reply = client.get("/", params={"dataset": DATASET, "question": question})
            pinned.append({"request": f"GET {run.name}", **_reply(reply, roots)})
        # Asked again, the answered question is replayed from its record: the same reply.
        question = case_question(RUNS[0].question, run_key("text2sparql", RUNS[0]))
        again = client.post("/", json={"dataset": DATASET, "question": question})
        pinned.append({"request": "POST answered again", **_reply(again, roots)})
        turned_away = [
            ("GET unknown dataset", client.get("/", params={"dataset": OTHER, "question": "Who?"})),
            ("GET no question", client.get("/", params={"dataset": DATASET})),
            ("POST not JSON", client.post("/", content=b"dataset=x", headers={"content-type": "text/plain"})),
            ("POST wrong fields", client.post("/", json={"dataset": DATASET, "question": 3})),
        ]
        pinned += [{"request": name, **_reply(reply, roots)} for name, reply in turned_away]
    check_golden("text2sparql", pinned)

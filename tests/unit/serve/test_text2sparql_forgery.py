"""TEXT2SPARQL starts runs only on requests a web page cannot forge (issue 38 build point 3; faults AH9-AH11).

One visit to a hostile page started runs with ``<img src=…?question=…>`` (a GET carries no
Origin); a page on another local port passed the Origin check (the port was ignored); in token
mode the cookie passed from such a page; with two ``Host`` or ``Origin`` headers the last won.
The face is served here by uvicorn on a loopback port, behind its own perimeter, and asked the
way the official TEXT2SPARQL client asks (``requests.get(url, params={dataset, question})``,
``text2sparql_client/request.py``) and the ways a browser would.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import requests
import uvicorn

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.runs.batch import read_run
from saga_kgqa.runs.predictions import PredictionRecord, PredictionStatus
from saga_kgqa.serve.http_face import listening_socket
from saga_kgqa.serve.perimeter import TOKEN_ENV
from saga_kgqa.serve.text2sparql.app import Text2SparqlService, build_app, perimeter_for

DATASET = "https://text2sparql.aksw.org/2025/corporate/"
TOKEN = "operator-token-0123456789abcdef"
CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"
IMG = {"user-agent": CHROME, "accept": "image/avif,image/webp,*/*", "sec-fetch-dest": "image"}


class Counted:
    """An answerer that counts the runs it was asked for."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, question: BenchmarkQuestion) -> PredictionRecord:
        self.calls += 1
        return PredictionRecord(
            question_id=question.id, predicted_sparql="ASK { ?s ?p ?o }", status=PredictionStatus.ANSWERED
        )


@contextmanager
def served(tmp_path: Path) -> Iterator[tuple[str, Counted]]:
    answerer = Counted()
    service = Text2SparqlService(
        datasets={DATASET: "src"},
        answerer_for=lambda _s, _t: answerer,
        predictions=tmp_path / "t2s.jsonl",
        config={},
        shape_answers=False,
    )
    sock = listening_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(perimeter_for("127.0.0.1").wrap(build_app(service)), log_level="error"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", answerer
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def _q(n: int) -> dict[str, str]:
    return {"dataset": DATASET, "question": f"Who leads department {n}?"}


def test_the_official_client_keeps_working_unchanged(tmp_path: Path) -> None:
    with served(tmp_path) as (url, answerer):
        # Exactly the official client's request: requests.get(url=endpoint, params={...}, timeout=...).
        reply = requests.get(url=url + "/", params=_q(1), timeout=30)
    assert reply.status_code == 200, reply.text
    assert reply.json() == {"dataset": DATASET, "question": _q(1)["question"], "query": "ASK { ?s ?p ?o }"}
    assert answerer.calls == 1 and len(read_run(tmp_path / "t2s.jsonl")) == 1


@pytest.mark.parametrize(
    "headers",
    [
        {**IMG, "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors"},  # <img> on a hostile site
        {**IMG, "sec-fetch-site": "same-site", "sec-fetch-mode": "no-cors"},  # a page on another local port
        {**IMG, "referer": "http://evil.example/"},  # a browser without fetch metadata
        {"user-agent": CHROME, "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate"},  # a top-level link
    ],
)
def test_a_get_a_page_can_send_cross_site_starts_no_run(tmp_path: Path, headers: dict[str, str]) -> None:
    with served(tmp_path) as (url, answerer), httpx.Client(base_url=url) as client:
        reply = client.get("/", params=_q(2), headers=headers)
    assert reply.status_code == 403, reply.text
    assert "JSON" in reply.json()["error"]
    assert answerer.calls == 0 and not (tmp_path / "t2s.jsonl").exists()


def test_requests_a_page_cannot_send_without_cors_start_runs(tmp_path: Path) -> None:
    with served(tmp_path) as (url, answerer), httpx.Client(base_url=url) as client:
        own = url  # the page's own origin: scheme, host and port
        posted = client.post("/", json=_q(3), headers={"user-agent": CHROME, "origin": own})
        assert posted.status_code == 200 and posted.json()["question"] == _q(3)["question"], posted.text
        custom = client.get("/", params=_q(4), headers={**IMG, "sec-fetch-site": "same-origin", "x-saga-client": "1"})
        assert custom.status_code == 200, custom.text
        typed = client.get("/", params=_q(5), headers={"user-agent": CHROME, "sec-fetch-site": "none"})
        assert typed.status_code == 200, typed.text  # the user's own address bar
        form = client.post(
            "/", content=f'{{"dataset": "{DATASET}", "question": "x"}}', headers={"content-type": "text/plain"}
        )
        assert form.status_code == 415, form.text  # a form's text/plain body never starts a run
    assert answerer.calls == 3


def test_origin_is_compared_as_scheme_host_and_port(tmp_path: Path) -> None:
    with served(tmp_path) as (url, answerer), httpx.Client(base_url=url) as client:
        port = int(url.rsplit(":", 1)[1])
        for origin in (f"http://127.0.0.1:{port + 1}", f"https://127.0.0.1:{port}", f"http://localhost:{port}"):
            reply = client.post("/", json=_q(6), headers={"origin": origin})
            assert reply.status_code == 403 and "Origin" in reply.json()["error"], (origin, reply.text)
        assert client.post("/", json=_q(6), headers={"origin": url}).status_code == 200
    assert answerer.calls == 1


def _raw(url: str, lines: list[str]) -> tuple[int, str]:
    """Send a POST with exactly these header lines (clients refuse to send a Host twice); (status, body)."""
    host, port = url.removeprefix("http://").split(":")
    body = json.dumps(_q(7)).encode()
    head = ["POST / HTTP/1.1", *lines, "content-type: application/json", f"content-length: {len(body)}"]
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(("\r\n".join([*head, "connection: close", "", ""])).encode() + body)
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
    status = int(reply.split(b" ", 2)[1])
    return status, reply.split(b"\r\n\r\n", 1)[1].decode()


def test_duplicate_host_or_origin_headers_are_refused(tmp_path: Path) -> None:
    with served(tmp_path) as (url, answerer):
        host = url.removeprefix("http://")
        for doubled in (
            [f"host: {host}", "host: evil.example"],
            [f"host: {host}", "origin: https://evil.example", f"origin: {url}"],
        ):
            status, body = _raw(url, doubled)
            assert status == 400 and "duplicate" in body, (doubled, status, body)
        assert _raw(url, [f"host: {host}", f"origin: {url}"])[0] == 200
    assert answerer.calls == 1


def test_with_a_token_no_cookie_is_set_or_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    with served(tmp_path) as (url, answerer), httpx.Client(base_url=url) as client:
        opened = client.get("/", params={**_q(8), "token": TOKEN}, headers={"user-agent": CHROME})
        assert opened.status_code == 401 and "set-cookie" not in opened.headers
        cookie = client.get("/", params=_q(8), headers={**IMG, "cookie": f"saga_token={TOKEN}"})
        assert cookie.status_code == 401
        bearer = client.get("/", params=_q(8), headers={"authorization": f"Bearer {TOKEN}", **IMG})
        assert bearer.status_code == 200, bearer.text
    assert answerer.calls == 1

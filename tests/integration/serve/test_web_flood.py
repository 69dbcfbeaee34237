"""A flood of 150 run requests on ``saga serve web``: busy answers beyond the cap, the server's threads bounded."""

from __future__ import annotations

import re
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from tests.conftest import REPO_ROOT
from tests.support.http_servers import SAGA, server_env

_URL = re.compile(r"serving (http://\S+)")
#: Runs one client may hold at once (the page's default per-client cap; every test client is 127.0.0.1).
PER_CLIENT = 8


def threads_of(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^Threads:\s+(\d+)", status, re.MULTILINE).group(1))  # type: ignore[union-attr]


def test_a_flood_of_150_runs_gets_busy_answers_and_the_thread_count_stays_bounded(tmp_path: Path) -> None:
    env = {"SAGA_MODEL_FACTORY": "tests.support.gated_models:gated_factory", "PYTHONPATH": str(REPO_ROOT)}
    args = [SAGA, "serve", "web", "--checkpoints", str(tmp_path / "c.sqlite"), "--port", "0"]
    process = subprocess.Popen(args, env=server_env(env), stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        url = next(found.group(1) for line in process.stderr if (found := _URL.search(line)))
        threading.Thread(target=process.stderr.read, daemon=True).start()
        with httpx.Client(base_url=url, timeout=60) as client:
            assert client.get("/api/sources").json()["model_ready"] is True
            before = threads_of(process.pid)

            def start(number: int) -> httpx.Response:
                return client.post("/api/runs", json={"question": f"Question {number}?"})

            with ThreadPoolExecutor(32) as pool:
                replies = list(pool.map(start, range(150)))
            codes = [reply.status_code for reply in replies]
            # The gated model holds every admitted run: exactly the cap is running, the rest were told to retry.
            assert codes.count(200) == PER_CLIENT and codes.count(429) == 150 - PER_CLIENT, codes
            assert all(r.headers["retry-after"] == "2" for r in replies if r.status_code == 429)
            after = threads_of(process.pid)
            # One worker per admitted run, the event loop's bounded pool (40) and a few of the server's own:
            # not one (or four, as before the cap) per request.
            assert after <= PER_CLIENT + 40 + 8, (before, after)
            assert client.get("/api/sources").status_code == 200  # the page still answers
    finally:
        process.terminate()
        process.wait(10)

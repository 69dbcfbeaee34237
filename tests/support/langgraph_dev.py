"""Run ``langgraph dev`` on a free loopback port for a test, offline and quiet, and talk to its HTTP API."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_READY_TIMEOUT_S = 60.0

#: The settings that keep ``langgraph dev`` from phoning home (docs/ecosystem-notes.md §1a).
OFFLINE_ENV = {
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    "LANGGRAPH_NO_VERSION_CHECK": "true",
    "LANGSMITH_TRACING": "false",
}


def free_port() -> int:
    """A loopback port that is free right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class DevServer:
    """A running server: its base URL, process and log file."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def request(self, method: str, path: str, body: Mapping[str, Any] | None = None, timeout: float = 60) -> Any:
        """Send one JSON request and decode the JSON reply."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            return json.loads(reply.read() or b"null")

    def stream(self, path: str, body: Mapping[str, Any], timeout: float = 60) -> list[tuple[str, Any]]:
        """POST to a server-sent-events route and return its ``(event, data)`` pairs."""
        request = urllib.request.Request(
            self.url + path, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"}
        )
        events: list[tuple[str, Any]] = []
        event = "message"
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            for raw in reply:
                line = raw.decode().rstrip("\r\n")
                if line.startswith("event:"):
                    event = line.partition(":")[2].strip()
                elif line.startswith("data:"):
                    events.append((event, json.loads(line.partition(":")[2].strip() or "null")))
        return events


@contextmanager
def langgraph_dev(config: Path, workdir: Path, env: Mapping[str, str]) -> Iterator[DevServer]:
    """Start ``langgraph dev`` for ``config`` in ``workdir`` (its ``.langgraph_api`` goes there); stop it after."""
    binary = Path(sys.executable).parent / "langgraph"
    port = free_port()
    log = workdir / "langgraph-dev.log"
    full_env = {**os.environ, **OFFLINE_ENV, **env}
    full_env.pop("LANGCHAIN_TRACING_V2", None)
    command = [
        str(binary),
        "dev",
        "--no-browser",
        "--no-reload",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--config",
        str(config),
    ]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command, cwd=workdir, env=full_env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = DevServer(url=f"http://127.0.0.1:{port}", process=process, log=log)
    try:
        _wait_ready(server)
        yield server
    finally:
        # The server and its workers share the session we gave it; end exactly that group.
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def _wait_ready(server: DevServer) -> None:
    deadline = time.monotonic() + _READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"langgraph dev exited early:\n{server.log.read_text(errors='replace')[-4000:]}")
        try:
            if server.request("GET", "/ok", timeout=2) is not None:
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"langgraph dev not ready in {_READY_TIMEOUT_S} s:\n{server.log.read_text(errors='replace')}")

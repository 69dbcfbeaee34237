"""The shared perimeter on all three HTTP faces, as started from the command line.

Per face: a foreign Host (also the SDK-passing ``127.0.0.1:1@evil.example``) and a foreign
Origin are refused before anything runs; binding beyond loopback without an operator token
refuses to start; with a token, a request without it is refused and the start says so.
"""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO_ROOT
from tests.support.http_servers import SAGA, saga_server, server_env

TOKEN = "operator-token-0123456789abcdef"
GATED = {"SAGA_MODEL_FACTORY": "tests.support.gated_models:gated_factory", "PYTHONPATH": str(REPO_ROOT)}
FACES = ("mcp", "text2sparql", "web")


def face_args(face: str, tmp_path: Path) -> list[str]:
    if face == "mcp":
        return ["mcp", "--http"]
    if face == "text2sparql":
        return ["serve", "text2sparql", "--out", str(tmp_path / "run.jsonl")]
    return ["serve", "web", "--checkpoints", str(tmp_path / "checkpoints.sqlite")]


def probe(face: str) -> tuple[str, str, dict[str, str]]:
    """A cheap request of the face that runs nothing: (method, path, params)."""
    if face == "mcp":
        return "GET", "/mcp", {}
    if face == "text2sparql":
        return "GET", "/", {"dataset": "https://example.org/unknown/", "question": "Who?"}  # 404: no run
    return "GET", "/api/sources", {}


@contextmanager
def started(face: str, tmp_path: Path, env: dict[str, str] | None = None) -> Iterator[httpx.Client]:
    with saga_server(face_args(face, tmp_path), {**GATED, **(env or {})}) as url:
        base = url.removesuffix("/mcp")
        with httpx.Client(base_url=base, timeout=30) as client:
            yield client


@pytest.mark.parametrize("face", FACES)
def test_foreign_host_and_origin_are_refused(face: str, tmp_path: Path) -> None:
    method, path, params = probe(face)
    with started(face, tmp_path) as client:
        for host in ("evil.example", "127.0.0.1:1@evil.example", "localhost.evil.example:80"):
            refused = client.request(method, path, params=params, headers={"host": host})
            assert refused.status_code == 421, (host, refused.text)
        cross = client.request(method, path, params=params, headers={"origin": "https://evil.example"})
        assert cross.status_code == 403 and "Origin" in cross.json()["error"]
        own = client.request(method, path, params=params)
        assert own.status_code not in (401, 403, 421), own.text
        assert own.headers["x-frame-options"] == "DENY" and own.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("face", FACES)
def test_a_non_loopback_bind_without_a_token_refuses_to_start(face: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [SAGA, *face_args(face, tmp_path), "--bind", "0.0.0.0", "--port", "0"],  # it must not start
        env=server_env(GATED),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0 and "serving" not in done.stderr
    assert "SAGA_SERVE_TOKEN" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("face", FACES)
def test_with_a_token_every_request_must_carry_it(face: str, tmp_path: Path) -> None:
    method, path, params = probe(face)
    with started(face, tmp_path, {"SAGA_SERVE_TOKEN": TOKEN}) as client:
        bare = client.request(method, path, params=params)
        assert bare.status_code == 401 and bare.headers["www-authenticate"].startswith("Bearer")
        wrong = client.request(method, path, params=params, headers={"authorization": "Bearer not-the-token-at-all"})
        assert wrong.status_code == 401
        carried = client.request(method, path, params=params, headers={"authorization": f"Bearer {TOKEN}"})
        assert carried.status_code not in (401, 403, 421), carried.text


@pytest.mark.parametrize("face", FACES)
def test_a_busy_port_is_one_line_and_the_documented_exit_status(face: str, tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            [SAGA, *face_args(face, tmp_path), "--port", str(port)],
            env=server_env(GATED),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, done.stderr  # unusable configuration (docs/cli.md, exit statuses)
    assert len(lines) == 1 and f"127.0.0.1:{port}" in lines[0] and "in use" in lines[0], done.stderr

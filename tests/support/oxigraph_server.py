"""A real SPARQL protocol server for tests: ``oxigraph serve-read-only`` on a free loopback port."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from saga_kgqa.kg.remote.endpoint_gate import forget_gate
from tests.support.sparql_ready import answers_ask

_READY_TIMEOUT_S = 15.0
#: How long our server must stay up after answering (a failed bind exits in milliseconds).
_BIND_SETTLE_S = 0.3
_START_ATTEMPTS = 3


@dataclass(frozen=True)
class OxigraphServer:
    """A running server.

    Attributes:
        url: The SPARQL query endpoint (``http://127.0.0.1:<port>/query``).
        process: The server process.
    """

    url: str
    process: subprocess.Popen[bytes]


def oxigraph_binary() -> Path | None:
    """The ``oxigraph`` CLI of the virtual environment (dev group), else one on PATH."""
    beside = Path(sys.executable).parent / "oxigraph"
    if beside.is_file():
        return beside
    found = shutil.which("oxigraph")
    return Path(found) if found else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_ready(server: OxigraphServer) -> bool:
    """Poll with ``ASK {}`` until the server answers; ``False`` when the process died.

    Another test's server may hold the port we picked: then ours exits (its bind failed) while the
    other one answers our ASK. So an answer counts only if our process is still alive a moment later.
    """
    if answers_ask(server.url, server.process, within_s=_READY_TIMEOUT_S, poll_s=0.05):
        time.sleep(_BIND_SETTLE_S)
        return server.process.poll() is None
    if server.process.poll() is not None:
        return False
    raise RuntimeError(f"oxigraph did not become ready at {server.url} within {_READY_TIMEOUT_S} s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@contextmanager
def oxigraph_server(data: Path, workdir: Path) -> Iterator[OxigraphServer]:
    """Load ``data`` into a store under ``workdir`` and serve it read-only until the block ends.

    Raises:
        FileNotFoundError: The ``oxigraph`` CLI is not installed.
        RuntimeError: The server could not be started.
    """
    binary = oxigraph_binary()
    if binary is None:
        raise FileNotFoundError("the oxigraph CLI is not installed (it comes with the dev dependency group)")
    store = workdir / "oxigraph-store"
    subprocess.run(
        [str(binary), "load", "--location", str(store), "--file", str(data)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    # The port is free when picked but another process may take it before oxigraph
    # binds it; the server then exits at once and we try another port.
    for _ in range(_START_ATTEMPTS):
        port = _free_port()
        process = subprocess.Popen(
            [str(binary), "serve-read-only", "--location", str(store), "--bind", f"127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        server = OxigraphServer(url=f"http://127.0.0.1:{port}/query", process=process)
        try:
            ready = _wait_ready(server)
        except BaseException:
            _stop(process)
            raise
        if ready:
            try:
                yield server
            finally:
                _stop(process)
            return
        _stop(process)
    raise RuntimeError(f"oxigraph serve-read-only failed to start {_START_ATTEMPTS} times")


@contextmanager
def serving_in_test(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OxigraphServer]:
    """:func:`oxigraph_server` for a fixture: skips when the CLI is missing, and no endpoint gate outlives it."""
    if oxigraph_binary() is None:
        pytest.skip("the oxigraph CLI is not installed (uv sync --group dev)")
    with oxigraph_server(data, tmp_path_factory.mktemp("oxigraph")) as server:
        forget_gate(server.url)
        try:
            yield server
        finally:
            forget_gate(server.url)

"""Issue 27: a faster-starting query worker keeps every safety property it had (faults Z2-Z4).

The worker now starts without ``site``, ``signal`` and ``threading`` (``test_worker_start_imports``);
these tests hold what that must not weaken, on real worker processes:

* Ctrl-C is the host's: ``SIGINT`` to the watchdog and the server (a terminal sends it to the whole
  foreground group) ends neither, and the next query is answered by the same worker;
* the server runs with core dumps off and its address space capped, and dies with its watchdog
  (``PR_SET_PDEATHSIG``), which is how the host stops a runaway query;
* the watchdog, with or without a pidfd to wait on (Linux >= 5.3, else a 0.1 s look), kills the
  server and deletes the temporary store when the host's lifeline closes (also when the lifeline
  sits above ``FD_SETSIZE``, where ``select`` fails), and mirrors the exit of a server that dies
  while the host lives (leaving the store to the host).
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.embedded import worker_main as wire
from saga_kgqa.kg.embedded.loading import load_files
from saga_kgqa.kg.embedded.worker import QueryWorker
from saga_kgqa.kg.embedded.worker_process import pyoxigraph_search_dir

MINI = Path(__file__).resolve().parents[2] / "data" / "mini.ttl"
ASK_TEXT = "ASK { ?s ?p ?o }"
ASK = CheckedQuery(text=ASK_TEXT, form="ASK", origin="guard", source_text=ASK_TEXT)

pytestmark = pytest.mark.skipif(
    not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(), reason="finds the server through /proc"
)


def server_of(watchdog: int) -> int:
    """The watchdog's one child, the server."""
    children = Path(f"/proc/{watchdog}/task/{watchdog}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def is_gone(pid: int) -> bool:
    """True once ``pid`` has exited (a zombie counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except (FileNotFoundError, ProcessLookupError):
        return True


def wait_until(condition: Callable[[], bool], timeout_s: float = 10.0) -> bool:
    """Poll ``condition`` until it holds or ``timeout_s`` passes."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    """A small read-only store on disk."""
    path = tmp_path / "store"
    load_files(path, [MINI])
    return path


def test_ctrl_c_reaches_neither_the_watchdog_nor_the_server(store_dir: Path) -> None:
    worker = QueryWorker(store_dir, {})
    try:
        assert worker.run(ASK, ExecutionLimits(deadline_s=30.0)).boolean is True
        watchdog = worker.pid
        assert watchdog is not None
        server = server_of(watchdog)
        os.kill(watchdog, signal.SIGINT)
        os.kill(server, signal.SIGINT)
        time.sleep(0.2)
        assert not is_gone(watchdog) and not is_gone(server)
        assert worker.run(ASK, ExecutionLimits(deadline_s=30.0)).boolean is True
        assert (worker.pid, worker.starts) == (watchdog, 1)
    finally:
        worker.close()


def test_the_server_has_no_core_dumps_a_capped_address_space_and_dies_with_its_watchdog(store_dir: Path) -> None:
    worker = QueryWorker(store_dir, {}, memory_mb=1536)
    try:
        assert worker.run(ASK, ExecutionLimits(deadline_s=30.0)).boolean is True
        watchdog = worker.pid
        assert watchdog is not None
        server = server_of(watchdog)
        limits = {
            line[:26].strip(): line[26:].split()[:2] for line in Path(f"/proc/{server}/limits").read_text().splitlines()
        }
        assert limits["Max core file size"] == ["0", "0"]
        assert limits["Max address space"][0] == str(1536 * 1024 * 1024)
        os.kill(watchdog, signal.SIGKILL)
        assert wait_until(lambda: is_gone(server)), "the server outlived its watchdog"
    finally:
        worker.close()


#: Runs the worker script as the host does, optionally on an ``os`` without ``pidfd_open``.
LAUNCH = (
    "import os, runpy, sys\n"
    "if sys.argv[1] == 'no-pidfd':\n"
    "    del os.pidfd_open\n"
    "sys.argv = sys.argv[2:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def start_by_hand(
    store_dir: Path, cleanup: Path, pidfd: bool, lifeline_fd: int | None = None
) -> tuple[subprocess.Popen[bytes], int, int]:
    """Start a worker, send its configuration and wait for "ready"; return it, its server and the lifeline.

    ``lifeline_fd`` puts the worker's end of the lifeline at that descriptor number (the host
    passes its own number on).
    """
    read_end, lifeline = os.pipe()
    if lifeline_fd is not None:
        os.dup2(read_end, lifeline_fd)
        os.close(read_end)
        read_end = lifeline_fd
    command = [sys.executable, "-S", "-P", "-c", LAUNCH, "pidfd" if pidfd else "no-pidfd", wire.__file__]
    command += ["--lifeline", str(read_end), "--pyoxigraph-dir", pyoxigraph_search_dir(), "--cleanup", str(cleanup)]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, pass_fds=(read_end,))
    os.close(read_end)
    assert process.stdin is not None and process.stdout is not None
    wire.write_frame(process.stdin.fileno(), {"store": str(store_dir), "prefixes": {}, "memory_bytes": 0})
    header = wire.read_exact(process.stdout.fileno(), wire.HEADER_BYTES)
    assert header is not None, "the worker exited while starting"
    payload = wire.read_exact(process.stdout.fileno(), wire.decode_length(header, 1 << 20))
    assert payload is not None and wire.decode_payload(payload) == {"status": "ready"}
    return process, server_of(process.pid), lifeline


#: A descriptor number ``select()`` cannot watch (``FD_SETSIZE``): a busy server host reaches it.
HIGH_FD = 1500


@pytest.mark.parametrize("lifeline_fd", [None, HIGH_FD], ids=["low-fd", "fd-1500"])
@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "no-pidfd"])
def test_the_watchdog_ends_the_server_and_deletes_the_store_when_the_host_is_gone(
    store_dir: Path, tmp_path: Path, pidfd: bool, lifeline_fd: int | None
) -> None:
    if lifeline_fd is not None:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft <= lifeline_fd:
            pytest.skip(f"the open-file limit ({soft}) is below {lifeline_fd}")
        with pytest.raises(OSError):
            os.fstat(lifeline_fd)  # free in this process
    cleanup = tmp_path / "saga-store-temporary"
    cleanup.mkdir()
    process, server, lifeline = start_by_hand(store_dir, cleanup, pidfd, lifeline_fd)
    try:
        time.sleep(0.3)  # the watchdog is waiting now: a live host keeps everything
        assert process.poll() is None and not is_gone(server) and cleanup.exists()
        os.close(lifeline)  # what the kernel does when the host dies, kill -9 included
        process.wait(10)
        assert wait_until(lambda: is_gone(server)), "the server outlived its host"
        assert not cleanup.exists(), "the temporary store outlived its host"
    finally:
        process.kill()
        process.wait()
        with contextlib.suppress(OSError):  # closed above unless the test failed first
            os.close(lifeline)


@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "no-pidfd"])
def test_the_watchdog_mirrors_a_dead_server_and_leaves_the_store_to_a_live_host(
    store_dir: Path, tmp_path: Path, pidfd: bool
) -> None:
    cleanup = tmp_path / "saga-store-temporary"
    cleanup.mkdir()
    process, server, lifeline = start_by_hand(store_dir, cleanup, pidfd)
    try:
        os.kill(server, signal.SIGKILL)
        # A server killed under it makes the watchdog *exit* with 128 + the signal: the host
        # tells that apart from the watchdog itself being signalled (a negative status).
        assert process.wait(10) == 128 + signal.SIGKILL
        assert cleanup.exists()
    finally:
        process.kill()
        process.wait()
        os.close(lifeline)

"""Issue 10, hole 7: the query worker dies with its host, and no temporary store outlives it.

``saga sparql`` on RDF files builds a temporary ``saga-store-*`` directory and runs the
query in a worker process. Killed mid-query (``SIGKILL`` or ``SIGTERM``), it must leave no
worker running (a watched pipe ends it; it used to spin at 99% CPU under PID 1) and no
temporary store behind. A store left by a host that died before any worker started is swept
by the next host that builds one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from saga_kgqa.kg.embedded.store import EmbeddedStore

SUBJECTS = 700  # 2 100 triples: a three-way cross product keeps the worker busy for minutes
RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


def write_graph(path: Path) -> Path:
    lines = []
    for i in range(SUBJECTS):
        lines.append(f'<http://example.org/s{i}> <http://example.org/p> "v{i}" .\n')
        lines.append(f"<http://example.org/s{i}> <http://example.org/q> <http://example.org/s{(i + 1) % SUBJECTS}> .\n")
        lines.append(f'<http://example.org/s{i}> <http://example.org/r> "{i}" .\n')
    path.write_text("".join(lines), encoding="utf-8")
    return path


def children_of(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Field 4 (after the parenthesised command, which may hold spaces) is the parent id.
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.add(int(entry.name))
    return found


def descendants_of(pid: int) -> set[int]:
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        nxt: set[int] = set()
        for parent in frontier:
            nxt |= children_of(parent) - found
        found |= nxt
        frontier = nxt
    return found


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # utime and stime are fields 14 and 15 of stat; here counted from the state field (3).
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def busy_descendant(pid: int) -> bool:
    """True once some descendant has spent a second of CPU: the worker is inside the query."""
    return any(cpu_seconds(child) >= 1.0 for child in descendants_of(pid))


def is_gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")  # a zombie runs nothing; reaping it is PID 1's business


def wait_until(predicate: object, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return bool(predicate())  # type: ignore[operator]


def saga() -> str:
    return str(Path(sys.executable).with_name("saga"))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc to find the worker")
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_killed_saga_sparql_leaves_no_worker_and_no_temporary_store(tmp_path: Path, signum: int) -> None:
    graph = write_graph(tmp_path / "graph.nt")
    temp_root = tmp_path / "tmp"
    temp_root.mkdir()
    host = subprocess.Popen(
        [saga(), "sparql", "--data", str(graph), "--timeout", "300", RUNAWAY],
        env={**os.environ, "TMPDIR": str(temp_root), "SAGA_STORE_CACHE_DIR": "off"},  # the temporary-store path
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: set[int] = set()
    try:
        assert wait_until(lambda: any(temp_root.glob("saga-store-*")), 60), "no temporary store was built"
        # The host has loaded the graph and started the worker: wait until it is busy with the query.
        assert wait_until(lambda: busy_descendant(host.pid), 90), "no worker got busy with the query"
        workers = descendants_of(host.pid)
        assert workers
        host.send_signal(signum)
        host.wait(timeout=30)
        assert wait_until(lambda: all(is_gone(pid) for pid in workers), 10), "a worker outlived its host"
        assert wait_until(lambda: not any(temp_root.glob("saga-store-*")), 10), (
            f"temporary store left behind: {sorted(p.name for p in temp_root.iterdir())}"
        )
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
        for pid in workers:  # never leave a runaway behind, even when the test fails
            if not is_gone(pid):
                os.kill(pid, signal.SIGKILL)


def test_stale_temporary_store_of_a_dead_host_is_swept_at_next_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # let tempfile read TMPDIR again
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f"saga-store-{dead.pid}-abcd1234"
    (stale / "store").mkdir(parents=True)
    alive = tmp_path / f"saga-store-{os.getpid()}-efgh5678"
    alive.mkdir()
    graph = write_graph(tmp_path / "graph.nt")
    with EmbeddedStore.from_files([graph]) as store:
        assert len(store) == 3 * SUBJECTS
        assert not stale.exists(), "the store of a dead host was not swept"
        assert alive.exists(), "the store of a live host was swept"
    monkeypatch.setattr(tempfile, "tempdir", None)

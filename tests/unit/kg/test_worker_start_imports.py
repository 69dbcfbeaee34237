"""Issue 27: the embedded query worker starts without importing what it does not need (faults Z1).

``bench/worker_start.py`` holds the worker's start to at most 3x a bare ``import pyoxigraph``
process. Each stray import on the way to the first answer (``typing`` with ``re``, ``signal``
with ``enum``, ``site`` with its ``.pth`` files, ``contextlib``, ``threading``) cost 0.5-3.5 ms
of a ~30 ms start. This test starts a real worker the way the host does, with Python's import
profiler switched on through the environment the worker inherits, and fails on any module the
worker tree imports beyond a bare ``python -S -P`` importing pyoxigraph and the few standard
modules the worker needs (``os``, the ``RLIMIT_AS`` cap, ``prctl`` through ``ctypes``, ``select``
for the watchdog).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.embedded.loading import load_files
from saga_kgqa.kg.embedded.worker import QueryWorker
from saga_kgqa.kg.embedded.worker_process import pyoxigraph_search_dir

#: Standard modules the worker needs on top of what a bare ``python -S`` importing pyoxigraph loads.
WORKER_NEEDS = {
    # os and what it brings in (``site`` imports it in a normal start, ``-S`` does not)
    "os",
    "stat",
    "_stat",
    "posixpath",
    "genericpath",
    "_collections_abc",
    # the wire format, the memory and core-dump caps, the watchdog's wait
    "marshal",
    "resource",
    "select",
    # PR_SET_PDEATHSIG through prctl(2)
    "ctypes",
    "types",
    "_ctypes",
    "ctypes._endian",
    "struct",
    "_struct",
}
#: Modules that once sat on the worker's path to its first answer.
NEVER = {"typing", "re", "enum", "signal", "contextlib", "threading", "site", "_distutils_hack", "saga_kgqa"}

MINI = Path(__file__).resolve().parents[2] / "data" / "mini.ttl"


def imported(profile: str) -> set[str]:
    """Module names in ``-X importtime`` output."""
    names = set()
    for line in profile.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":
                names.add(name)
    return names


def bare_pyoxigraph_imports() -> set[str]:
    """What ``python -S -P`` importing pyoxigraph from its own directory loads."""
    code = f"import sys; sys.path.append({pyoxigraph_search_dir()!r}); import pyoxigraph"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-S", "-P", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return imported(done.stderr)


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="reads the worker's stderr through /proc")
def test_the_worker_imports_nothing_it_does_not_need(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store_dir = tmp_path / "store"
    load_files(store_dir, [MINI])
    # The worker inherits the host's environment: this switches Python's import profiler on in it.
    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")
    worker = QueryWorker(store_dir, {})
    try:
        text = "ASK { ?s ?p ?o }"
        query = CheckedQuery(text=text, form="ASK", origin="guard", source_text=text)
        assert worker.run(query, ExecutionLimits(deadline_s=30.0)).boolean is True
        # The watchdog and the server share one stderr, a file only the host holds besides them.
        profile = Path(f"/proc/{worker.pid}/fd/2").read_text(encoding="utf-8", errors="replace")
    finally:
        worker.close()
    names = imported(profile)
    assert "pyoxigraph" in names, f"no import profile from the worker: {profile[-2000:]!r}"
    extra = names - bare_pyoxigraph_imports() - WORKER_NEEDS
    assert not extra, f"the worker imports modules it does not need at start: {sorted(extra)}"
    top_level = {name.split(".")[0] for name in names}
    assert not (top_level & NEVER), sorted(top_level & NEVER)


def test_the_worker_finds_pyoxigraph_where_the_host_does() -> None:
    # The worker starts without ``site`` (-S), so the host names pyoxigraph's directory: it must be
    # the one the host's own import used, wherever that is (venv, user site, system).
    import pyoxigraph

    search_dir = Path(pyoxigraph_search_dir())
    assert Path(pyoxigraph.__file__).resolve().parent == (search_dir / "pyoxigraph").resolve()
    assert os.path.isdir(search_dir)

"""A load killed midway leaves a build folder; the next load removes it (issue 38 build point 7; faults AH6).

``kill -9`` during ``saga load`` leaves ``.S.building-<pid>`` (and, during the swap,
``.S.replaced-<pid>``) beside the store; no later load removed them, so each killed load kept a
store's worth of disk. The next load removes those whose process is gone, and only those.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from saga_kgqa.kg.embedded.loading import build_store

EX = "http://example.org/left/"


def _dead_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


def test_the_next_load_removes_build_folders_of_dead_loads_only(tmp_path: Path) -> None:
    data = tmp_path / "g.nt"
    data.write_text(f"<{EX}a> <{EX}p> <{EX}b> .\n", encoding="utf-8")
    store = tmp_path / "S"
    dead = _dead_pid()
    leftovers = [tmp_path / f".S.building-{dead}", tmp_path / f".S.replaced-{dead}"]
    for folder in leftovers:
        folder.mkdir()
        (folder / "000001.sst").write_bytes(b"x" * 1024)
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as live:
        running = tmp_path / f".S.building-{live.pid}"  # a load still running: not ours to remove
        running.mkdir()
        other = tmp_path / f".T.building-{dead}"  # another store's leftover: its own next load removes it
        other.mkdir()
        try:
            assert build_store(store, [data]) == 1
            assert not any(folder.exists() for folder in leftovers)
            assert running.exists() and other.exists()
            (store / "marker").write_text("x", encoding="utf-8")
            assert build_store(store, [data]) == 1  # appending too
        finally:
            live.kill()
    assert running.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".S.")) == [running.name]


def test_a_load_killed_between_its_renames_gets_its_old_store_back(tmp_path: Path) -> None:
    data = tmp_path / "g.nt"
    data.write_text(f"<{EX}a> <{EX}p> <{EX}b> .\n", encoding="utf-8")
    store = tmp_path / "S"
    build_store(store, [data])
    dead = _dead_pid()
    store.rename(tmp_path / f".S.replaced-{dead}")  # the old store moved aside, the new one never moved in
    (tmp_path / f".S.building-{dead}").mkdir()
    more = tmp_path / "more.nt"
    more.write_text(f"<{EX}c> <{EX}p> <{EX}d> .\n", encoding="utf-8")
    assert build_store(store, [more]) == 2  # appended to the old store, found again
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".S.")] == []

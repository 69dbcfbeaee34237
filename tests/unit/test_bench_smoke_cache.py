"""bench/smoke.py's session cache: what is a pure function of the data is built once per smoke session (issue 43)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
# Loaded by path: bench/ on sys.path would shadow other modules (bench/examples.py, bench/patterns.py).
_spec = importlib.util.spec_from_file_location("bench_smoke", BENCH / "smoke.py")
assert _spec is not None and _spec.loader is not None
smoke = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(smoke)

# Two processes at once ask for the same store: the second waits for the first one's build and copies it.
_RACE = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from smoke import reuse_store
def build(folder: Path) -> str:
    with open(sys.argv[2], "a") as log:
        log.write("built\\n")
    time.sleep(0.5)
    folder.mkdir()
    (folder / "data").write_text("store")
    return "report"
print(reuse_store("store", Path(sys.argv[3]), build))
"""


def test_a_smoke_session_builds_once_and_each_bench_gets_its_own_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(smoke.SMOKE_ENV, "1")
    monkeypatch.setenv(smoke.CACHE_ENV, str(tmp_path / "cache"))
    built: list[Path] = []

    def build(folder: Path) -> dict[str, int]:
        built.append(folder)
        folder.mkdir()
        (folder / "data").write_text("store")
        return {"triples": 3}

    first = smoke.reuse_store("wikidata store /data", tmp_path / "a", build)
    second = smoke.reuse_store("wikidata store /data", tmp_path / "b", build)
    assert first == second == {"triples": 3} and len(built) == 1
    (tmp_path / "a" / "data").write_text("changed by the first bench")
    assert (tmp_path / "b" / "data").read_text() == "store"  # a copy each, not the cached store itself
    smoke.reuse_store("wikidata store /other-data", tmp_path / "c", build)
    assert len(built) == 2  # another key, another build
    calls: list[int] = []
    assert smoke.reuse("index", lambda: calls.append(1) or [1, 2]) == [1, 2]
    assert smoke.reuse("index", lambda: calls.append(1) or [3]) == [1, 2] and calls == [1]


def test_without_the_cache_or_outside_smoke_mode_every_run_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    monkeypatch.setenv(smoke.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(smoke.SMOKE_ENV, "0")  # a measured run never reuses anything
    smoke.reuse("index", lambda: calls.append(1))
    smoke.reuse("index", lambda: calls.append(1))
    monkeypatch.setenv(smoke.SMOKE_ENV, "1")
    monkeypatch.delenv(smoke.CACHE_ENV)
    smoke.reuse("index", lambda: calls.append(1))
    smoke.reuse("index", lambda: calls.append(1))
    assert calls == [1, 1, 1, 1] and not (tmp_path / "cache").exists()


def test_two_processes_at_once_build_the_store_once(tmp_path: Path) -> None:
    env = {smoke.SMOKE_ENV: "1", smoke.CACHE_ENV: str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    log = tmp_path / "builds.log"
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", _RACE, str(BENCH), str(log), str(tmp_path / f"copy-{n}")],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    outputs = [racer.communicate(timeout=60)[0] for racer in racers]
    assert [racer.returncode for racer in racers] == [0, 0]
    assert outputs == ["report\n", "report\n"] and log.read_text() == "built\n"
    assert all((tmp_path / f"copy-{n}" / "data").read_text() == "store" for n in range(2))

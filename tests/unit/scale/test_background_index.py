"""``saga load --index background``: the store answers at once, the name index follows (issue 27, build item 1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from saga_kgqa.kg.embedded.loading import build_store
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import build_schema_index
from saga_kgqa.tools.context import ToolCaps
from saga_kgqa.tools.search.background_index import (
    acquire_build_lock,
    build_marker,
    pending_build,
    release_build_lock,
    start_background_build,
)
from saga_kgqa.tools.search.fulltext import FullTextIndex
from tests.support.grounding import tool_view

EX = "http://example.org/bg/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


def _graph(path: Path) -> Path:
    path.write_text("".join(f'<{EX}e{n}> <{LABEL}> "entity {n} named" .\n' for n in range(50)), encoding="utf-8")
    return path


def _saga(*argv: str, cache: Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"SAGA_SURVEY_DIR": str(cache), "LANGSMITH_TRACING": "false"}
    return subprocess.run(
        [sys.executable, "-m", "saga_kgqa", *argv], capture_output=True, text=True, env=env, timeout=180
    )


def test_load_returns_and_the_index_is_built_in_the_background(tmp_path: Path) -> None:
    store = tmp_path / "store"
    done = _saga("load", str(_graph(tmp_path / "g.nt")), "--store", str(store), "--index", "background", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "in the background" in done.stdout
    deadline = time.monotonic() + 120
    while build_marker(store).exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not build_marker(store).exists(), (store / "saga-fulltext.log").read_text(encoding="utf-8")
    assert "names indexed so far" in (store / "saga-fulltext.log").read_text(encoding="utf-8")  # progress, logged
    index = FullTextIndex.open(store / "saga-fulltext")
    assert [m.resource for m in index.search("entity 41 named", limit=1)] == [f"{EX}e41"]
    searched = _saga("search", "entity 41 named", "--data", str(store), cache=tmp_path)
    assert searched.returncode == 0 and f"{EX}e41" in searched.stdout
    assert "background" not in searched.stdout + searched.stderr


def test_load_with_index_off_builds_none(tmp_path: Path) -> None:
    store = tmp_path / "store"
    done = _saga("load", str(_graph(tmp_path / "g.nt")), "--store", str(store), "--index", "off", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (store / "saga-fulltext").exists() and not build_marker(store).exists()


@pytest.fixture()
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SAGA_SURVEY_DIR", str(tmp_path / "cache"))
    build_store(tmp_path / "store", [_graph(tmp_path / "g.nt")])
    return tmp_path / "store"


def _search_while_pending(store: Path, pid: int) -> tuple[object, list[str], list[str]]:
    build_marker(store).write_text(json.dumps({"pid": pid}), encoding="utf-8")
    backend = EmbeddedStore(store)
    # A threshold below the graph's names: without a pending build this search would stream an index.
    kit = tool_view(KnowledgeGraph(backend), build_schema_index(backend), caps=ToolCaps(fulltext_names=10))
    result = kit.search("entity 17 named")
    return kit.context.label_index, [h.resource.iri for h in result.hits], list(result.notes)


def test_a_search_while_the_build_runs_reads_the_stores_names_and_says_so(store: Path, tmp_path: Path) -> None:
    index, hits, notes = _search_while_pending(store, os.getpid())  # a live process holds the marker
    assert not isinstance(index, FullTextIndex)  # no second build started beside the pending one
    assert hits[0] == f"{EX}e17"  # never wrong: the store's own names
    assert any("being built in the background" in note for note in notes), notes
    assert not (tmp_path / "cache" / "names").exists()


def test_a_marker_of_a_dead_build_is_ignored(store: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    assert pending_build(store) is None
    index, hits, notes = _search_while_pending(store, dead.pid)
    assert isinstance(index, FullTextIndex)  # streamed as usual
    assert hits[0] == f"{EX}e17" and not any("background" in note for note in notes)


def test_load_builds_the_schema_index_the_commands_open(tmp_path: Path) -> None:
    # The first search or lookup after `saga load` opens the content's schema index instead of building it.
    store = tmp_path / "store"
    done = _saga("load", str(_graph(tmp_path / "g.nt")), "--store", str(store), "--index", "off", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    searched = _saga("search", "entity 3 named", "--data", str(store), cache=tmp_path)
    assert searched.returncode == 0, searched.stderr
    assert "using the schema index built on the fly for this content before" in searched.stderr


def _wait_gone(pid: int, seconds: float = 120) -> None:
    # The builder is this process's child: once it exits it stays a zombie, which `kill(pid, 0)` still
    # finds, until it is reaped; so reap it (the loop waited out all 120 s for it, the suite's slowest test).
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return
        except ChildProcessError:  # not our child (or reaped already): it is gone when kill finds nothing
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
        time.sleep(0.2)
    pytest.fail(f"the background builder {pid} still runs after {seconds} s")


def test_one_background_builder_per_store(store: Path) -> None:
    # Two `saga load --index background` on one store: the second finds the first's lock and starts none.
    first, started = start_background_build(store)
    second, again = start_background_build(store)
    try:
        assert started and not again and second == first
        assert pending_build(store) == first
    finally:
        _wait_gone(first)
    assert pending_build(store) is None and not build_marker(store).exists()
    assert "names indexed so far" in (store / "saga-fulltext.log").read_text(encoding="utf-8")


def test_a_killed_builders_lock_is_recovered_and_a_non_owner_never_clears_it(store: Path) -> None:
    holder = subprocess.Popen(  # a builder: takes the lock, then is killed -9 while "building"
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; "
            "from saga_kgqa.tools.search.background_index import acquire_build_lock; "
            "assert acquire_build_lock(Path(sys.argv[1])) is not None; print('held', flush=True); time.sleep(120)",
            str(store),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    assert acquire_build_lock(store) is None and pending_build(store) == holder.pid
    # Another build ending (a second job started by hand) leaves the owner's marker alone.
    job = subprocess.run(
        [sys.executable, "-m", "saga_kgqa.cli.index.job", str(store)], capture_output=True, text=True, timeout=120
    )
    assert job.returncode == 0 and "already" in job.stdout + job.stderr, job.stdout + job.stderr
    assert pending_build(store) == holder.pid and not (store / "saga-fulltext").exists()
    holder.kill()
    holder.wait()
    assert pending_build(store) is None  # the dead owner's marker counts as none
    lock = acquire_build_lock(store)  # and its lock is free again
    assert lock is not None
    release_build_lock(store, lock)
    assert not build_marker(store).exists()

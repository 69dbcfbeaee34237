"""The store cache: a repeated ``--data f.ttl`` reuses one read-only store, a changed file gets a new one.

Real pyoxigraph stores on disk; concurrency with real processes (bounded in count and time).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.embedded import store_cache
from saga_kgqa.kg.embedded.loading import content_digest
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.embedded.store_cache import StoreCache, default_root, open_cache
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend

EX = "http://example.org/"
NAMES = from_template(f"SELECT ?n WHERE {{ ?s <{EX}name> ?n }} ORDER BY ?n")
MIB = 1024 * 1024


def write(path: Path, *names: str) -> Path:
    path.write_text("".join(f'<{EX}{n}> <{EX}name> "{n}" .\n' for n in names), encoding="utf-8")
    return path


def names_of(store: EmbeddedStore) -> list[str]:
    return [term.value for term in store.execute(NAMES).column("n")]


def cached(cache: StoreCache, *paths: Path) -> EmbeddedStore:
    store = EmbeddedStore.from_cache(cache, list(paths))
    assert store is not None, "the files should have been cached"
    return store


def entries(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir())


def test_the_same_file_reuses_one_persisted_read_only_store(tmp_path: Path) -> None:
    cache = StoreCache(tmp_path / "cache", max_bytes=64 * MIB)
    graph = write(tmp_path / "g.ttl", "ada")
    first = EmbeddedStore.from_cache(cache, [graph])
    assert first is not None
    built = first.store_dir
    assert names_of(first) == ["ada"]
    first.close()
    assert built.is_dir(), "a cached store outlives the command that built it"
    mtime_files = {p: p.stat().st_mtime_ns for p in built.iterdir()}
    second = EmbeddedStore.from_cache(cache, [graph])
    assert second is not None
    assert second.store_dir == built
    assert names_of(second) == ["ada"]
    # Same identity as a temporary store of the same files: record/replay keys still match.
    assert second.endpoint_id == f"embedded:files:{content_digest([graph])[:32]}"
    second.close()
    assert {p: p.stat().st_mtime_ns for p in built.iterdir()} == mtime_files, "the second run wrote to the store"
    assert entries(cache.root) == [built]


def test_the_worker_answers_guarded_queries_on_a_cached_store(tmp_path: Path) -> None:
    cache = StoreCache(tmp_path / "cache", max_bytes=64 * MIB)
    store = EmbeddedStore.from_cache(cache, [write(tmp_path / "g.ttl", "ada", "bob")])
    assert store is not None
    with KnowledgeGraph(store) as graph:
        result = graph.query(f"SELECT ?n WHERE {{ ?s <{EX}name> ?n }} ORDER BY ?n")
        assert [t.value for t in result.column("n")] == ["ada", "bob"]
        assert store.worker_starts == 1


def test_a_changed_file_gets_a_new_store(tmp_path: Path) -> None:
    cache = StoreCache(tmp_path / "cache", max_bytes=64 * MIB)
    graph = write(tmp_path / "g.ttl", "ada")
    with cached(cache, graph) as first:
        assert names_of(first) == ["ada"]
    write(graph, "ada", "bob")
    with cached(cache, graph) as second:
        assert names_of(second) == ["ada", "bob"]
        assert second.store_dir != first.store_dir


def test_the_same_bytes_in_another_format_are_another_entry(tmp_path: Path) -> None:
    cache = StoreCache(tmp_path / "cache", max_bytes=64 * MIB)
    turtle = write(tmp_path / "g.ttl", "ada")
    triples = write(tmp_path / "g.nt", "ada")
    with cached(cache, turtle) as a, cached(cache, triples) as b:
        assert a.store_dir != b.store_dir


def test_a_file_that_fails_to_load_leaves_no_entry(tmp_path: Path) -> None:
    cache = StoreCache(tmp_path / "cache", max_bytes=64 * MIB)
    bad = tmp_path / "bad.ttl"
    bad.write_text("<not valid turtle", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="cannot load"):
        EmbeddedStore.from_cache(cache, [bad])
    left = [path for path in cache.root.iterdir() if path.name != store_cache.MEMO_FILE]
    assert left == [next(cache.root.glob("*.lock"))]


def test_files_too_large_for_the_bound_are_cached_alone_when_the_disk_has_room(tmp_path: Path) -> None:
    # Issue 27: a large graph given as files was loaded again by every command.
    small = write(tmp_path / "small.ttl", "s0")
    cache = StoreCache(tmp_path / "cache", max_bytes=1024)
    with cached(StoreCache(tmp_path / "cache", max_bytes=64 * MIB), small):
        pass
    graph = write(tmp_path / "g.ttl", *(f"n{i}" for i in range(100)))
    with cached(cache, graph) as big:
        assert big.store_dir.parent == cache.root
    assert entries(cache.root) == [big.store_dir], "the unused smaller entry made room"


def test_files_too_large_for_the_bound_are_not_cached_on_a_full_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = StoreCache(tmp_path / "cache", max_bytes=1024)
    graph = write(tmp_path / "g.ttl", *(f"n{i}" for i in range(100)))
    full = shutil._ntuple_diskusage(total=10 * MIB, used=10 * MIB - 4096, free=4096)  # type: ignore[attr-defined]
    monkeypatch.setattr(store_cache.shutil, "disk_usage", lambda _path: full)
    assert EmbeddedStore.from_cache(cache, [graph]) is None
    backend = open_backend(data=[graph], store_cache=cache)
    try:
        assert isinstance(backend, EmbeddedStore)
        temporary = backend.store_dir
        assert temporary.parent != cache.root
    finally:
        backend.close()
    assert not temporary.exists(), "the fallback temporary store is deleted on close"


def test_least_recently_used_entries_are_evicted_but_never_one_in_use(tmp_path: Path) -> None:
    graphs = [write(tmp_path / f"g{i}.ttl", *(f"n{i}-{j}" for j in range(200))) for i in range(3)]
    probe = StoreCache(tmp_path / "probe", max_bytes=64 * MIB)
    with cached(probe, graphs[0]) as one:
        size = sum(p.stat().st_size for p in one.store_dir.iterdir())
    # Room for two entries, not three.
    cache = StoreCache(tmp_path / "cache", max_bytes=int(size * 2.5))
    held = EmbeddedStore.from_cache(cache, [graphs[0]])  # oldest, but in use
    assert held is not None
    os.utime(held.store_dir, (1, 1))
    with cached(cache, graphs[1]) as second:
        os.utime(second.store_dir, (2, 2))
        middle = second.store_dir
    with cached(cache, graphs[2]) as third:
        newest = third.store_dir
    assert entries(cache.root) == sorted([held.store_dir, newest]), "the unused LRU entry goes, the held one stays"
    assert not middle.exists()
    assert names_of(held) == [f"n0-{j}" for j in sorted(range(200), key=str)]
    held.close()


def test_an_entry_is_leased_while_open_and_released_on_close(tmp_path: Path) -> None:
    cache = StoreCache(tmp_path / "cache", max_bytes=64 * MIB)
    store = EmbeddedStore.from_cache(cache, [write(tmp_path / "g.ttl", "ada")])
    assert store is not None
    lock = os.open(cache.root / f"{store.store_dir.name}.lock", os.O_RDWR)
    try:
        with pytest.raises(BlockingIOError):
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        store.close()
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free again
    finally:
        os.close(lock)


_BUILD = """
import sys
from pathlib import Path
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.embedded.store_cache import StoreCache
from saga_kgqa.kg.core.query import from_template
cache = StoreCache(Path(sys.argv[1]), max_bytes=1 << 30)
sys.stdin.readline()  # start together
store = EmbeddedStore.from_cache(cache, [Path(sys.argv[2])])
rows = store.execute(from_template("SELECT (COUNT(*) AS ?c) WHERE { ?s ?p ?o }")).rows
print(store.store_dir, rows[0]["c"].value)
store.close()
"""


def test_concurrent_creation_of_one_entry_succeeds_for_every_process(tmp_path: Path) -> None:
    graph = write(tmp_path / "g.ttl", *(f"n{i}" for i in range(2000)))
    root = tmp_path / "cache"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _BUILD, str(root), str(graph)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    outputs = []
    try:
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
        for proc in procs:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err[-2000:]
            outputs.append(out.split())
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert {tuple(o) for o in outputs} == {(str(entries(root)[0]), "2000")}
    assert len(entries(root)) == 1, f"left behind: {sorted(p.name for p in root.iterdir())}"


def test_a_builder_killed_midway_leaves_a_directory_swept_later(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    root.mkdir()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = root / f"saga-store-{dead.pid}-half"
    stale.mkdir()
    cache = StoreCache(root, max_bytes=64 * MIB)
    with cached(cache, write(tmp_path / "g.ttl", "ada")) as store:
        assert names_of(store) == ["ada"]
    assert not stale.exists()


def test_the_environment_turns_the_cache_off_or_moves_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAGA_STORE_CACHE_DIR", "off")
    assert open_cache() is None
    monkeypatch.setenv("SAGA_STORE_CACHE_DIR", str(tmp_path / "c"))
    assert default_root() == tmp_path / "c"
    monkeypatch.delenv("SAGA_STORE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_root() == tmp_path / "xdg" / "saga-kgqa" / "stores"
    monkeypatch.setenv("SAGA_STORE_CACHE_MB", "lots")
    with pytest.raises(ConfigurationError, match="SAGA_STORE_CACHE_MB"):
        open_cache()


def test_a_cache_directory_of_another_user_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = StoreCache(tmp_path / "cache", max_bytes=64 * MIB)
    (tmp_path / "cache").mkdir()
    monkeypatch.setattr(os, "getuid", lambda: os.stat(tmp_path).st_uid + 1)
    assert EmbeddedStore.from_cache(cache, [write(tmp_path / "g.ttl", "ada")]) is None


def test_a_files_digest_is_memoised_until_it_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = StoreCache(tmp_path / "cache", max_bytes=64 * MIB)
    graph = write(tmp_path / "g.ttl", "a", "b")
    hashed: list[Path] = []
    real = store_cache.hash_file
    monkeypatch.setattr(store_cache, "hash_file", lambda path: hashed.append(path) or real(path))
    for _ in range(3):
        with cached(cache, graph):
            pass
    assert hashed == [graph]  # read once, not by every command
    write(graph, "a", "b", "c")
    with cached(cache, graph) as changed:
        assert names_of(changed) == ["a", "b", "c"]
    assert hashed == [graph, graph]

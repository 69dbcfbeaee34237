"""A plain run over a large graph of files searches a persistent full-text index, built once.

Before, every process rebuilt the in-memory name index and scanned every name per search
(7.9 s a search at 1,000,000 names, the build 50 s: ``bench/autoschema.py``). The threshold is
lowered here so a small graph stands in for a large one.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from saga_kgqa.kg.embedded.store import EmbeddedStore, load_files
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.private_files import mark_entry
from saga_kgqa.schema import build_schema_index
from saga_kgqa.tools.context import ToolCaps
from saga_kgqa.tools.search import names_cache
from saga_kgqa.tools.search.fulltext import FullTextIndex
from saga_kgqa.tools.search.label_index import LabelIndex
from saga_kgqa.tools.toolbox import ToolView
from tests.support.grounding import tool_view

DATA = Path(__file__).resolve().parents[3] / "src" / "saga_kgqa" / "example_graph" / "space_exploration.ttl"
LOW = ToolCaps(fulltext_names=5)


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SAGA_SURVEY_DIR", str(tmp_path))
    return tmp_path


def _kit(store: EmbeddedStore, caps: ToolCaps = LOW) -> ToolView:
    return tool_view(KnowledgeGraph(store), build_schema_index(store), caps=caps)


def test_a_large_graph_of_files_gets_a_full_text_index_that_later_runs_open(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with EmbeddedStore.from_files([DATA]) as store:
        first = _kit(store)
        hits = first.search("Jim Lovell")
        assert isinstance(first.context.label_index, FullTextIndex)
        assert hits.hits and hits.hits[0].resource.label == "Jim Lovell"
        assert list((cache / "names").iterdir())
    # A later run over the same files opens the index and reads no name at all.
    monkeypatch.setattr(names_cache, "read_names", _no_reads)
    with EmbeddedStore.from_files([DATA]) as again:
        second = _kit(again)
        assert second.search("Jim Lovell").hits[0].resource.iri == hits.hits[0].resource.iri
        assert isinstance(second.context.label_index, FullTextIndex)


def test_a_small_graph_keeps_the_in_memory_index_and_writes_nothing(cache: Path) -> None:
    with EmbeddedStore.from_files([DATA]) as store:
        kit = _kit(store, ToolCaps())
        assert kit.search("Jim Lovell").hits[0].resource.label == "Jim Lovell"
        assert isinstance(kit.context.label_index, LabelIndex)
    assert not (cache / "names").exists()


def test_a_store_directory_keeps_the_in_memory_index(cache: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    # Its id is its path: a rebuilt store would meet a stale index, so nothing is cached for it.
    directory = tmp_path_factory.mktemp("store") / "space"
    load_files(directory, [DATA])
    with EmbeddedStore(directory) as store:
        kit = _kit(store)
        assert kit.search("Jim Lovell").hits[0].resource.label == "Jim Lovell"
        assert isinstance(kit.context.label_index, LabelIndex)
    assert not (cache / "names").exists()


def _no_reads(*_args: object, **_kwargs: object) -> list[object]:
    raise AssertionError("the cached index was not used: names were read again")


def test_the_cache_keeps_the_most_recently_used_indexes_only(cache: Path) -> None:
    names = cache / "names"
    for number in range(names_cache.MAX_CACHED_INDEXES + 3):
        old = names / f"old{number:02d}"
        old.mkdir(parents=True)
        mark_entry(old, f"key{number}")  # built by this user's cache: eviction takes only those
        os.utime(old, (1_000_000 + number, 1_000_000 + number))
    with EmbeddedStore.from_files([DATA]) as store:
        kit = _kit(store)
        assert isinstance(kit.context.label_index, FullTextIndex)
        built = kit.context.label_index.path
    kept = sorted(p.name for p in names.iterdir())
    assert len(kept) == names_cache.MAX_CACHED_INDEXES
    assert built.name in kept
    # The newest of the old ones stay, the oldest went first.
    assert "old00" not in kept and f"old{names_cache.MAX_CACHED_INDEXES + 2:02d}" in kept


def test_every_language_shares_one_index(cache: Path) -> None:
    # Names of every language are indexed with their tags and ranked per question (issue 25.4): one index serves all.
    with EmbeddedStore.from_files([DATA]) as store:
        for language in ("en", "de"):
            kit = tool_view(KnowledgeGraph(store), build_schema_index(store), caps=LOW, language=language)
            assert isinstance(kit.context.label_index, FullTextIndex)
    assert len(list((cache / "names").iterdir())) == 1


def test_two_threads_building_the_same_index_both_get_one(cache: Path) -> None:
    with EmbeddedStore.from_files([DATA]) as store:
        kits = [_kit(store) for _ in range(2)]
        with ThreadPoolExecutor(max_workers=2) as pool:
            indexes = list(pool.map(lambda kit: kit.context.label_index, kits))
        assert all(isinstance(index, FullTextIndex) for index in indexes)
        assert all(kit.search("Jim Lovell").hits[0].resource.label == "Jim Lovell" for kit in kits)
    left = [p.name for p in (cache / "names").iterdir()]
    assert len(left) == 1 and ".building-" not in left[0]

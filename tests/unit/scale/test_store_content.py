"""``saga load`` stores: appending links instead of copying, and one content key (issue 27)."""

from __future__ import annotations

from pathlib import Path

import pytest

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.embedded.loading import build_store, content_digest, read_content_key

EX = "http://example.org/a/"


def _graph(path: Path, start: int, count: int) -> Path:
    path.write_text("".join(f"<{EX}e{n}> <{EX}p> <{EX}e{n + 1}> .\n" for n in range(start, start + count)))
    return path


def _inodes(store: Path) -> set[int]:
    return {entry.stat().st_ino for entry in store.iterdir() if entry.suffix == ".sst"}


def test_appending_links_the_stores_files_instead_of_copying_them(tmp_path: Path) -> None:
    store = tmp_path / "store"
    build_store(store, [_graph(tmp_path / "a.nt", 0, 2000)])
    before = _inodes(store)
    assert before
    count = build_store(store, [_graph(tmp_path / "b.nt", 5000, 10)])
    assert count == 2010
    assert before & _inodes(store)  # the same files, not copies of them


def test_the_content_key_is_the_files_digest_then_chained_on_appends(tmp_path: Path) -> None:
    a, b = _graph(tmp_path / "a.nt", 0, 5), _graph(tmp_path / "b.nt", 10, 5)
    first, second = tmp_path / "one", tmp_path / "two"
    build_store(first, [a])
    build_store(second, [a])
    assert read_content_key(first) == read_content_key(second) == content_digest([a])
    build_store(first, [b])
    appended = read_content_key(first)
    assert appended is not None and appended != content_digest([a])
    build_store(second, [b])
    assert read_content_key(second) == appended  # the same loads give the same key


def test_a_failed_append_leaves_the_store_and_its_key(tmp_path: Path) -> None:
    a = _graph(tmp_path / "a.nt", 0, 5)
    store = tmp_path / "store"
    build_store(store, [a])
    bad = tmp_path / "bad.nt"
    bad.write_text("<not valid\n")
    with pytest.raises(ConfigurationError):
        build_store(store, [bad])
    assert read_content_key(store) == content_digest([a])
    assert not list(tmp_path.glob(".store.*"))  # no snapshot left behind


def test_a_loaded_store_is_identified_by_its_content_and_surveyed_once_for_every_name(tmp_path: Path) -> None:
    from saga_kgqa.kg.embedded.store import EmbeddedStore
    from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
    from saga_kgqa.schema.survey_cache import cached_survey, forget_surveys

    a = _graph(tmp_path / "a.nt", 0, 5)
    build_store(tmp_path / "one", [a])
    build_store(tmp_path / "two", [a])
    with EmbeddedStore(tmp_path / "one") as one, EmbeddedStore(tmp_path / "two") as two:
        assert one.endpoint_id == two.endpoint_id == f"embedded:files:{content_digest([a])[:32]}"
        forget_surveys()
        first = cached_survey(KnowledgeGraph(one), source="store", cache_dir=tmp_path / "cache")
        forget_surveys()  # from disk now, under another name
        again = cached_survey(KnowledgeGraph(two), source="mine", cache_dir=tmp_path / "cache")
    assert again.source == "mine"
    assert again.built_at == first.built_at  # not surveyed again
    assert len(list((tmp_path / "cache").glob("*.json"))) == 1  # one survey file, found under the other name

"""Caches trust nothing they did not make (issue 26, faults L8-L11): planted surveys and stores, symlinked eviction."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.embedded.store_cache import StoreCache
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.private_files import mark_entry
from saga_kgqa.schema import build_schema_index
from saga_kgqa.schema.survey_cache import cached_survey, forget_surveys
from saga_kgqa.tools.context import ToolCaps
from saga_kgqa.tools.search import names_cache
from saga_kgqa.tools.search.fulltext import FullTextIndex
from tests.conftest import TEST_DATA
from tests.support.grounding import tool_view

LAB = TEST_DATA / "autoschema" / "lab.trig"
SPACE = Path(__file__).resolve().parents[3] / "src" / "saga_kgqa" / "example_graph" / "space_exploration.ttl"
FORGED = "http://forged.example/Class"


def _plant(cache: Path) -> Path:
    """A genuine survey on disk, then forged: a class that is not in the graph, dated 2099."""
    forget_surveys()
    with KnowledgeGraph(open_backend(data=[LAB])) as graph:
        cached_survey(graph, source="lab", cache_dir=cache)
    (path,) = cache.glob("lab-*.json")
    text = path.read_text(encoding="utf-8").replace("http://example.org/lab/Protein", FORGED)
    path.write_text(re.sub(r'"built_at":"[^"]*"', '"built_at":"2099-01-01T00:00:00+00:00"', text), encoding="utf-8")
    forget_surveys()
    return path


def _served(cache: Path) -> str:
    with KnowledgeGraph(open_backend(data=[LAB])) as graph:
        survey = cached_survey(graph, source="lab", cache_dir=cache)
    forget_surveys()
    return survey.model_dump_json()


def test_a_survey_in_a_directory_of_another_user_is_not_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "surveys"
    _plant(cache)
    assert FORGED in _served(cache)  # the planted file itself is well formed: ours, it would be served
    owner = os.stat(cache).st_uid
    monkeypatch.setattr(os, "getuid", lambda: owner + 1)
    assert FORGED not in _served(cache)


def test_a_survey_in_a_world_writable_directory_is_not_served(tmp_path: Path) -> None:
    cache = tmp_path / "surveys"
    _plant(cache)
    cache.chmod(0o777)
    assert FORGED not in _served(cache)


def test_a_survey_whose_content_is_not_its_key_is_not_served(tmp_path: Path) -> None:
    cache = tmp_path / "surveys"
    path = _plant(cache)
    path.write_text(path.read_text(encoding="utf-8").replace('"source":"lab"', '"source":"other"'), encoding="utf-8")
    assert FORGED not in _served(cache)


def test_surveys_are_private_files_in_a_private_directory(tmp_path: Path) -> None:
    cache = tmp_path / "surveys"
    path = _plant(cache)
    assert (os.stat(cache).st_mode & 0o777, os.stat(path).st_mode & 0o777) == (0o700, 0o600)


def test_name_index_eviction_never_deletes_what_it_did_not_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    survey_dir, victim = tmp_path / "surveys", tmp_path / "victim"
    monkeypatch.setenv("SAGA_SURVEY_DIR", str(survey_dir))
    for number in range(names_cache.MAX_CACHED_INDEXES + 3):
        (victim / f"precious{number:02d}").mkdir(parents=True)
    survey_dir.mkdir()
    (survey_dir / "names").symlink_to(victim)  # another user's trick: names/ points at the victim's folders
    with EmbeddedStore.from_files([SPACE]) as store:
        kit = tool_view(KnowledgeGraph(store), build_schema_index(store), caps=ToolCaps(fulltext_names=5))
        kit.search("Jim Lovell")
    assert len(list(victim.iterdir())) >= names_cache.MAX_CACHED_INDEXES + 3


def test_name_index_eviction_takes_only_its_own_marked_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAGA_SURVEY_DIR", str(tmp_path))
    names = tmp_path / "names"
    for number in range(names_cache.MAX_CACHED_INDEXES + 3):
        (names / f"ours{number:02d}").mkdir(parents=True)
        mark_entry(names / f"ours{number:02d}", f"key{number}")
        os.utime(names / f"ours{number:02d}", (1_000_000 + number, 1_000_000 + number))
    (names / "unmarked").mkdir()
    os.utime(names / "unmarked", (1, 1))
    with EmbeddedStore.from_files([SPACE]) as store:
        kit = tool_view(KnowledgeGraph(store), build_schema_index(store), caps=ToolCaps(fulltext_names=5))
        assert isinstance(kit.context.label_index, FullTextIndex)
    kept = sorted(p.name for p in names.iterdir())
    assert "unmarked" in kept and "ours00" not in kept
    assert len([k for k in kept if k != "unmarked"]) == names_cache.MAX_CACHED_INDEXES
    assert os.stat(names).st_mode & 0o777 == 0o700


def test_a_world_writable_store_cache_root_is_not_used(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    root.mkdir()
    root.chmod(0o777)
    graph = tmp_path / "g.ttl"
    graph.write_text('<http://example.org/a> <http://example.org/name> "a" .\n', encoding="utf-8")
    assert EmbeddedStore.from_cache(StoreCache(root, max_bytes=64 * 1024 * 1024), [graph]) is None


def test_a_source_name_index_is_private_and_never_written_through_a_symlink(tmp_path: Path) -> None:
    from saga_kgqa.config.catalog import Catalog, SourceRecord
    from saga_kgqa.sources.resolution import resolve_entity
    from saga_kgqa.sources.session import SourceSet

    forget_surveys()
    catalog = Catalog(sources={"lab": SourceRecord(name="lab", data=(LAB,))}, default_source="lab")
    cache = tmp_path / "cache"
    with SourceSet(catalog, survey_dir=cache) as sources:
        assert resolve_entity(sources, "lab", "UniProt:P12345").candidates
    (meta,) = cache.glob("fulltext/*/saga-fulltext.json")
    assert os.stat(meta).st_mode & 0o777 == 0o600
    assert all(os.stat(p).st_mode & 0o777 == 0o700 for p in (cache, cache / "fulltext", meta.parent))
    forget_surveys()
    elsewhere, other = tmp_path / "elsewhere", tmp_path / "other-cache"
    elsewhere.mkdir()
    other.mkdir(mode=0o700)
    (other / "fulltext").symlink_to(elsewhere)
    with SourceSet(catalog, survey_dir=other) as sources:
        assert resolve_entity(sources, "lab", "UniProt:P12345").candidates
    assert list(elsewhere.iterdir()) == []
    forget_surveys()


def test_an_unmarked_index_of_an_earlier_version_is_rebuilt_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SAGA_SURVEY_DIR", str(tmp_path))
    with EmbeddedStore.from_files([SPACE]) as store:
        kit = tool_view(KnowledgeGraph(store), build_schema_index(store), caps=ToolCaps(fulltext_names=5))
        index = kit.context.label_index
        assert isinstance(index, FullTextIndex)
        (index.path / ".saga-cache-entry").unlink()  # as an earlier version left it: no marker
        again = tool_view(KnowledgeGraph(store), build_schema_index(store), caps=ToolCaps(fulltext_names=5))
        assert isinstance(again.context.label_index, FullTextIndex)
        assert (index.path / ".saga-cache-entry").is_file()


def test_a_store_entry_marked_for_other_content_is_not_served(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    cache = StoreCache(root, max_bytes=64 * 1024 * 1024)
    graph = tmp_path / "g.ttl"
    graph.write_text('<http://example.org/a> <http://example.org/name> "a" .\n', encoding="utf-8")
    store = EmbeddedStore.from_cache(cache, [graph])
    assert store is not None
    entry = store.store_dir
    store.close()
    mark_entry(entry, "0" * 40)  # the marker of other files: a renamed or swapped entry
    assert EmbeddedStore.from_cache(cache, [graph]) is None
    (entry / ".saga-cache-entry").unlink()  # an earlier version's entry, unmarked, ours: adopted
    adopted = EmbeddedStore.from_cache(cache, [graph])
    assert adopted is not None
    adopted.close()


def test_private_files_refuse_links_fifos_and_shared_roots(tmp_path: Path) -> None:
    from saga_kgqa.private_files import UnsafeCacheDir, private_root, read_private, write_private

    real = private_root(tmp_path / "real")
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(UnsafeCacheDir, match="symlink"):
        private_root(tmp_path / "link")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o770)
    with pytest.raises(UnsafeCacheDir, match="chmod 700"):
        private_root(shared)
    write_private(real / "a.json", "{}")
    assert read_private(real / "a.json") == "{}"
    (real / "b.json").symlink_to(real / "a.json")
    assert read_private(real / "b.json") is None  # never followed
    os.mkfifo(real / "c.json")
    assert read_private(real / "c.json") is None  # not a regular file, and the open did not block

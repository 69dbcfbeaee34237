"""Commands without ``--schema`` build a store content's schema index once, then open it (issue 27)."""

from __future__ import annotations

from pathlib import Path

import pytest

from saga_kgqa.cli.index.commands import load_or_build_schema
from saga_kgqa.kg.embedded.loading import build_store
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import content_cache
from tests.conftest import REPO_ROOT

GRAPH = REPO_ROOT / "src" / "saga_kgqa" / "example_graph" / "space_exploration.ttl"


class CountingStore(EmbeddedStore):
    """Counts the queries sent (a schema build sends dozens)."""

    sent = 0

    def execute(self, query, limits=None):  # type: ignore[no-untyped-def]
        CountingStore.sent += 1
        return super().execute(query, limits)


@pytest.fixture()
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SAGA_SURVEY_DIR", str(tmp_path / "cache"))
    build_store(tmp_path / "store", [GRAPH])
    return tmp_path / "store"


def test_the_second_command_opens_the_schema_the_first_built(store: Path) -> None:
    CountingStore.sent = 0
    with KnowledgeGraph(CountingStore(store)) as graph:
        first = load_or_build_schema(graph, None)
    built_with = CountingStore.sent
    assert built_with > 5
    with KnowledgeGraph(CountingStore(store)) as graph:
        again = load_or_build_schema(graph, None)
    assert CountingStore.sent == built_with  # no query: opened from the cache
    assert again.model_dump() == first.model_dump()


def test_only_content_keyed_graphs_are_cached() -> None:
    vocabulary = content_cache.SchemaVocabulary()
    assert content_cache.schema_path("embedded:/some/dir", vocabulary, {}) is None
    assert content_cache.schema_path("https://query.example.org/sparql", vocabulary, {}) is None
    assert content_cache.schema_path("embedded:files:abc", vocabulary, {}) is not None

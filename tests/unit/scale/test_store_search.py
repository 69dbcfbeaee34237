"""Search on a ``saga load`` store opens the index built with it, or streams one (issue 27)."""

from __future__ import annotations

from pathlib import Path

import pytest

from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.kg.embedded.loading import build_store
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import build_schema_index
from saga_kgqa.sources.resolution import name_index
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.tools.context import ToolCaps
from saga_kgqa.tools.search.fulltext import FullTextIndex
from saga_kgqa.tools.toolbox import ToolView
from tests.support.grounding import RecordingReader, tool_view

EX = "http://example.org/s/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


@pytest.fixture()
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SAGA_SURVEY_DIR", str(tmp_path / "cache"))
    graph = tmp_path / "g.nt"
    graph.write_text("".join(f'<{EX}e{n}> <{LABEL}> "entity {n} named" .\n' for n in range(40)), encoding="utf-8")
    build_store(tmp_path / "store", [graph])
    return tmp_path / "store"


def _kit(store: Path, caps: ToolCaps | None = None) -> ToolView:
    backend = EmbeddedStore(store)
    return tool_view(KnowledgeGraph(backend), build_schema_index(backend), caps=caps)


def test_a_plain_run_on_a_loaded_store_opens_the_index_saga_load_built(store: Path) -> None:
    catalog = Catalog(sources={"store": SourceRecord(name="store", store=store)}, default_source="store")
    with SourceSet(catalog) as sources:
        built = name_index(sources.get("store"), rebuild=True)
    kit = _kit(store)
    index = kit.context.label_index
    assert isinstance(index, FullTextIndex)
    assert index.path == built.path == store / "saga-fulltext"
    assert [m.resource for m in index.search("entity 7 named", limit=1)] == [f"{EX}e7"]


def test_a_large_store_without_one_streams_its_index_once(store: Path, tmp_path: Path) -> None:
    first = _kit(store, ToolCaps(fulltext_names=10, names_per_predicate=5)).context.label_index
    assert isinstance(first, FullTextIndex)
    assert (tmp_path / "cache") in first.path.parents
    assert not first.notes  # streamed: the per-predicate cap of 5 does not apply
    assert [m.resource for m in first.search("entity 33 named", limit=1)] == [f"{EX}e33"]
    again = _kit(store, ToolCaps(fulltext_names=10, names_per_predicate=5)).context.label_index
    assert isinstance(again, FullTextIndex) and again.path == first.path


def test_a_small_store_keeps_the_in_memory_index(store: Path) -> None:
    index = _kit(store, ToolCaps(fulltext_names=1000)).context.label_index
    assert not isinstance(index, FullTextIndex)


def test_the_loaded_index_brings_its_name_detection_so_a_search_sends_no_sample_queries(tmp_path: Path) -> None:
    # A graph naming things under its own property (concert_name): detection finds it when the index is built.
    graph = tmp_path / "titled.nt"
    graph.write_text(
        "".join(
            f'<{EX}t{n}> <{EX}concert_name> "Titled thing {n}" .\n<{EX}t{n}> <{TYPE}> <{EX}Thing> .\n'
            for n in range(30)
        ),
        encoding="utf-8",
    )
    build_store(tmp_path / "titled", [graph])
    catalog = Catalog(sources={"t": SourceRecord(name="t", store=tmp_path / "titled")}, default_source="t")
    with SourceSet(catalog, survey_dir=tmp_path / "cache") as sources:
        built = name_index(sources.get("t"), rebuild=True)
    assert built.recorded_detection() is not None
    backend = EmbeddedStore(tmp_path / "titled")
    reader = RecordingReader(backend)
    kit = tool_view(reader, build_schema_index(backend))
    reader.queries.clear()
    assert isinstance(kit.context.label_index, FullTextIndex)
    assert reader.queries == []  # opened with the detection it was built with: no sampling per search
    assert f"{EX}concert_name" in kit.context.detected_names.predicates
    assert [h.resource.iri for h in kit.search("Titled thing 7").hits][:1] == [f"{EX}t7"]

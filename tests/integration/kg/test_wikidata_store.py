"""The offline Wikidata store: Wikidata's layout, provenance per source, CoDEx test triples held out."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from saga_kgqa.dialects import WIKIDATA_DIALECT
from saga_kgqa.dialects.wikidata_store import MANIFEST, build_wikidata_store
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import build_dialect_index
from tests.support.grounding import tool_view
from tests.support.wikidata_store_data import write_store_sources

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("wikidata-store")
    data = write_store_sources(root / "data")
    build_wikidata_store(data, root / "store")
    return data, root / "store"


def _select(store_dir: Path, query: str) -> list[tuple[str, ...]]:
    store = ox.Store.read_only(str(store_dir))
    rows = store.query(query, use_default_graph_as_union=True)
    out = [tuple(term.value for term in row) for row in rows]  # type: ignore[union-attr]
    del store
    return sorted(out)


def test_held_out_codex_test_triples_are_never_loaded(built: tuple[Path, Path]) -> None:
    _data, store = built
    directors = _select(store, f"SELECT ?s ?o WHERE {{ ?s <{WDT}P57> ?o }}")
    assert (WD + "Q20", WD + "Q1") in directors
    # CoDEx-M test (also repeated by the trace) and CoDEx-S test triples stay out.
    assert (WD + "Q21", WD + "Q2") not in directors
    assert (WD + "Q22", WD + "Q3") not in directors


def test_every_triple_lives_in_the_graph_of_its_first_source(built: tuple[Path, Path]) -> None:
    _data, store = built
    graphs = _select(store, f"SELECT ?g WHERE {{ GRAPH ?g {{ <{WD}Q1> <{WDT}P27> <{WD}Q10> }} }}")
    assert graphs == [("urn:saga:source:codex-m-train",)]
    population = _select(store, f"SELECT ?g WHERE {{ GRAPH ?g {{ <{WD}Q42053> <{WDT}P1082> ?v }} }}")
    assert population == [("urn:saga:source:spinach-qald10-lookup",)]
    assert not _select(store, "SELECT ?s WHERE { ?s ?p ?o }".replace("?s ?p ?o", "GRAPH <urn:x> { ?s ?p ?o }"))


def test_trace_statements_keep_qualifiers_in_wikidata_layout(built: tuple[Path, Path]) -> None:
    _data, store = built
    rows = _select(
        store,
        f"PREFIX p: <http://www.wikidata.org/prop/> PREFIX ps: <http://www.wikidata.org/prop/statement/> "
        f"PREFIX pq: <http://www.wikidata.org/prop/qualifier/> "
        f"SELECT ?v ?t WHERE {{ <{WD}Q42053> p:P1082 ?st . ?st ps:P1082 ?v ; pq:P585 ?t }}",
    )
    assert rows == [("1961260", "2016-01-01T00:00:00Z")]
    labels = _select(store, f"SELECT ?l WHERE {{ <{WD}Q42053> <http://www.w3.org/2000/01/rdf-schema#label> ?l }}")
    assert labels == [("Isfahan",)]
    examples = _select(store, f"SELECT ?s WHERE {{ <{WD}P1082> <{WDT}P1855> ?s }}")
    assert examples == [(WD + "Q42053",)]
    executed = _select(store, f"SELECT ?o WHERE {{ <{WD}Q42053> <{WDT}P17> ?o }}")
    assert executed == [(WD + "Q794",)]


def test_manifest_reports_sources_and_leftovers(built: tuple[Path, Path]) -> None:
    _data, store = built
    manifest = (store / MANIFEST).read_text()
    assert '"held_out": 3' in manifest  # two CoDEx-M-train copies of test triples and the trace's copy
    assert '"unresolved_examples": 1' in manifest


def test_refuses_a_non_empty_store_directory(built: tuple[Path, Path]) -> None:
    data, store = built
    with pytest.raises(ConfigurationError, match="not empty"):
        build_wikidata_store(data, store)


def test_lookup_shows_wdt_properties_with_qualifiers_not_labels(built: tuple[Path, Path]) -> None:
    data, store = built
    schema = build_dialect_index("wikidata", data_dir=data)
    with KnowledgeGraph(EmbeddedStore(store, profile=get_profile("wikidata"))) as graph:
        kit = tool_view(graph, schema, dialect=WIKIDATA_DIALECT)
        result = kit.lookup("wd:Q42053")
    assert [t.id for t in result.types] == ["wd:Q1549591", "wd:Q56557504"]
    shown = {k.info.property.id: k for k in result.kept} | {h.info.property.id: h for h in result.hidden}
    assert set(shown) == {"wdt:P1082", "wdt:P17"}  # no rdfs:label, schema:description or p:P1082
    population = shown["wdt:P1082"]
    assert hasattr(population, "values")
    detail = population.values[0].details[0]
    assert detail.property.id == "pq:P585"
    assert detail.value.datatype_id == "xsd:dateTime"
    assert "pq:P585" in result.text


def test_property_examples_come_from_p1855_then_from_sampled_triples(built: tuple[Path, Path]) -> None:
    data, store = built
    schema = build_dialect_index("wikidata", data_dir=data)
    with KnowledgeGraph(EmbeddedStore(store, profile=get_profile("wikidata"))) as graph:
        kit = tool_view(graph, schema, dialect=WIKIDATA_DIALECT)
        recorded = kit.examples("wdt:P1082")
        sampled = kit.examples("wdt:P27")
    assert [(e.subject.id, e.object.value) for e in recorded.examples] == [("wd:Q42053", "1961260")]
    # No P1855 statement for P27: real triples, one per subject.
    assert {e.subject.id for e in sampled.examples} == {"wd:Q1", "wd:Q2", "wd:Q3", "wd:Q4", "wd:Q99"}


def test_offline_search_finds_entities_by_label_and_properties_by_schema_name(built: tuple[Path, Path]) -> None:
    data, store = built
    schema = build_dialect_index("wikidata", data_dir=data)
    with KnowledgeGraph(EmbeddedStore(store, profile=get_profile("wikidata"))) as graph:
        kit = tool_view(graph, schema, dialect=WIKIDATA_DIALECT)
        entities = kit.search("isfahan")
        properties = kit.search("population")
    assert entities.hits[0].resource.id == "wd:Q42053"
    assert entities.hits[0].description == "city in Isfahan Province, Iran"
    assert "wdt:P1082" in {h.resource.id for h in properties.hits if h.kind == "property"}

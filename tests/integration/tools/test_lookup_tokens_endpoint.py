"""The token comparison reads a live Wikidata endpoint the same way it reads the embedded store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from bench.grounding_eval.lookup_tokens import TokenComparison, measure_tokens, spinach_raw_entry

from saga_kgqa.dialects import WIKIDATA_DIALECT
from saga_kgqa.dialects.model import WIKIBASE_EXTERNAL_ID
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.schema import PropertySchema, SchemaIndex
from saga_kgqa.tools.context import ToolCaps
from tests.support.grounding import tool_view
from tests.support.oxigraph_server import OxigraphServer, serving_in_test

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
ITEM = "http://wikiba.se/ontology#WikibaseItem"

# A person with 24 occupations (a large neighbourhood), labels in two languages, an unlabelled
# value and an external identifier; a second, small entity.
TTL = "\n".join(
    [
        "@prefix wd: <http://www.wikidata.org/entity/> .",
        "@prefix wdt: <http://www.wikidata.org/prop/direct/> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        'wd:Q1 rdfs:label "Ada"@en ; wdt:P31 wd:Q5 ; wdt:P214 "viaf-1" ; wdt:P27 wd:Q145 ; wdt:P19 wd:Q84 .',
        'wd:Q145 rdfs:label "United Kingdom"@en, "Vereinigtes Königreich"@de .',
        'wd:Q5 rdfs:label "human"@en .',
        *(f'wd:Q1 wdt:P106 wd:Q{100 + i} . wd:Q{100 + i} rdfs:label "job {i}"@en .' for i in range(24)),
        'wd:Q2 rdfs:label "Bob"@en ; wdt:P31 wd:Q5 ; wdt:P27 wd:Q145 .',
    ]
)


def _index() -> SchemaIndex:
    entries = [
        PropertySchema(iri=WDT + "P31", label="instance of", datatype=ITEM),
        PropertySchema(iri=WDT + "P27", label="country of citizenship", datatype=ITEM),
        PropertySchema(iri=WDT + "P19", label="place of birth", datatype=ITEM),
        PropertySchema(iri=WDT + "P106", label="occupation", datatype=ITEM),
        PropertySchema(iri=WDT + "P214", label="VIAF ID", datatype=WIKIBASE_EXTERNAL_ID),
    ]
    return SchemaIndex(properties={e.iri: e for e in entries})


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("wikidata-tokens") / "people.ttl"
    path.write_text(TTL, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def server(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OxigraphServer]:
    with serving_in_test(data, tmp_path_factory) as running:
        yield running


def _measure(graph: KnowledgeGraph, schema: SchemaIndex) -> TokenComparison:
    kit = tool_view(graph, schema, dialect=WIKIDATA_DIALECT)
    paper_kit = tool_view(graph, schema, dialect=WIKIDATA_DIALECT, caps=ToolCaps(values_per_property=0))
    return measure_tokens(kit, graph, schema, [WD + "Q1", WD + "Q2", WD + "Q1"], paper_kit=paper_kit)


def test_spinach_json_keeps_english_labels_and_drops_identifiers(data: Path) -> None:
    with EmbeddedStore.from_files([data], profile=get_profile("wikidata")) as backend:
        graph = KnowledgeGraph(backend)
        entry = json.loads(spinach_raw_entry(graph, WD + "Q1", _index(), WIKIDATA_DIALECT.vocabulary.label_predicates))
    assert "VIAF ID (P214)" not in entry
    assert entry["country of citizenship (P27)"] == "United Kingdom (Q145)"
    assert entry["place of birth (P19)"] == "Q84 (Q84)"  # the label service names an unlabelled item by its id
    assert len(entry["occupation (P106)"]) == 24
    assert list(entry)[:2] == ["place of birth (P19)", "country of citizenship (P27)"]


def test_an_endpoint_gives_the_same_samples_as_the_embedded_store(data: Path, server: OxigraphServer) -> None:
    schema = _index()
    with EmbeddedStore.from_files([data], profile=get_profile("wikidata")) as backend:
        embedded = _measure(KnowledgeGraph(backend), schema)
    with KnowledgeGraph(open_backend(endpoint=server.url, profile="wikidata")) as graph:
        remote = _measure(graph, schema)
    assert [s.entity for s in remote.tokens] == [WD + "Q1", WD + "Q2"]  # each entity once
    assert remote.tokens == embedded.tokens
    assert remote.paper_tokens == embedded.paper_tokens
    large = remote.tokens[0]
    assert large.values >= 20 and large.compact_tokens < large.raw_tokens
    assert remote.ratio() == large.compact_tokens / large.raw_tokens  # only Q1 reaches 20 values
    assert remote.ratio(paper_form=True) < remote.ratio()

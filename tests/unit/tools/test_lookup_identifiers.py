"""Wikidata lookup names external-identifier properties on one line, without their values."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.dialects import RDF_DIALECT, WIKIDATA_DIALECT
from saga_kgqa.dialects.model import WIKIBASE_EXTERNAL_ID
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import PropertySchema, SchemaIndex
from tests.support.grounding import tool_view

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
ITEM = "http://wikiba.se/ontology#WikibaseItem"

TTL = """
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
wd:Q1 rdfs:label "Ada"@en ; wdt:P31 wd:Q5 ; wdt:P106 wd:Q2 ;
    wdt:P214 "viaf-12345" ; wdt:P227 "gnd-678" ; wdt:P9 "old-id-1" .
wd:Q3 rdfs:label "Only ids"@en ; wdt:P31 wd:Q5 ; wdt:P214 "viaf-999" .
"""


def _index() -> SchemaIndex:
    entries = [
        PropertySchema(iri=WDT + "P106", label="occupation", datatype=ITEM),
        PropertySchema(iri=WDT + "P214", label="VIAF ID", datatype=WIKIBASE_EXTERNAL_ID),
        PropertySchema(iri=WDT + "P227", label="GND ID", datatype=WIKIBASE_EXTERNAL_ID),
        PropertySchema(iri=WDT + "P9", label="old catalogue ID", datatype=WIKIBASE_EXTERNAL_ID),
    ]
    return SchemaIndex(properties={e.iri: e for e in entries})


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeGraph]:
    path = Path(tmp_path_factory.mktemp("ids")) / "ids.ttl"
    path.write_text(TTL)
    with EmbeddedStore.from_files([path]) as backend:
        yield KnowledgeGraph(backend)


def test_identifiers_are_named_in_id_order_and_their_values_are_not_shown(graph: KnowledgeGraph) -> None:
    result = tool_view(graph, _index(), dialect=WIKIDATA_DIALECT).lookup("wd:Q1")
    assert [k.info.property.id for k in result.kept] == ["wdt:P106"]
    # Numeric id order (P9 before P214), not text order.
    assert [ref.id for ref in result.identifiers] == ["wdt:P9", "wdt:P214", "wdt:P227"]
    assert (
        'Identifiers in other databases (3; values not shown): "old catalogue ID" (wdt:P9), "VIAF ID" (wdt:P214), '
        '"GND ID" (wdt:P227)'
    ) in result.text.splitlines()
    assert "viaf-12345" not in result.text and "old-id-1" not in result.text
    assert "Properties (1 shown of 1 kept; 0 hidden)" in result.text


def test_an_entity_with_only_identifiers_still_has_properties(graph: KnowledgeGraph) -> None:
    result = tool_view(graph, _index(), dialect=WIKIDATA_DIALECT).lookup("wd:Q3")
    assert result.found and not result.kept
    assert "no outgoing properties" not in result.text
    assert 'Identifiers in other databases (1; values not shown): "VIAF ID" (wdt:P214)' in result.text


def test_plain_rdf_has_no_identifier_datatypes_so_every_property_is_listed(graph: KnowledgeGraph) -> None:
    result = tool_view(graph, _index(), dialect=RDF_DIALECT).lookup(f"<{WD}Q1>")
    assert not result.identifiers
    assert WDT + "P214" in {k.info.property.iri for k in result.kept}

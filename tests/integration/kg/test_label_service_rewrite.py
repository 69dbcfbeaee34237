"""Wikidata's label service off WDQS: rewritten into plain patterns after the guard, then checked again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.kg.remote.endpoint import RemoteEndpoint
from tests.support.virtuoso_server import VirtuosoServer

DATA = Path(__file__).resolve().parents[2] / "data" / "label_service.ttl"
PREFIXES = (
    "PREFIX wd: <http://www.wikidata.org/entity/> PREFIX wdt: <http://www.wikidata.org/prop/direct/>\n"
    "PREFIX wikibase: <http://wikiba.se/ontology#> PREFIX bd: <http://www.bigdata.com/rdf#>\n"
    "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> PREFIX schema: <http://schema.org/>\n"
)
AUTOMATIC = PREFIXES + (
    "SELECT ?item ?itemLabel ?itemDescription ?itemAltLabel WHERE { ?item wdt:P31 wd:Q146 . "
    'SERVICE wikibase:label { bd:serviceParam wikibase:language "[AUTO_LANGUAGE],fr". } } ORDER BY ?item'
)
# What WDQS answers on this data: English first, then French, else the bare id; alt labels joined.
EXPECTED = [
    {"item": "Q1", "itemLabel": "cat", "itemDescription": "a cat", "itemAltLabel": "kitty, puss"},
    {"item": "Q2", "itemLabel": "chat"},
    {"item": "Q3", "itemLabel": "Q3"},
]


def _rows(graph: KnowledgeGraph, text: str) -> list[dict[str, str]]:
    rows = graph.query(text).rows
    return [{k: v.value.removeprefix("http://www.wikidata.org/entity/") for k, v in row.items()} for row in rows]


@pytest.fixture(params=["embedded", "wikidata"])
def local(request: pytest.FixtureRequest) -> Iterator[KnowledgeGraph]:
    """A local Wikidata-shaped store, under the embedded profile and under the wikidata one (a local dump)."""
    with KnowledgeGraph(EmbeddedStore.from_files([DATA], profile=get_profile(request.param))) as graph:
        yield graph


def test_automatic_labels_on_a_local_store(local: KnowledgeGraph) -> None:
    checked = local.check(AUTOMATIC)
    assert "SERVICE" not in checked.text.upper().replace("SERVICEPARAM", "")
    assert "wikibase:label" in checked.source_text
    assert _rows(local, AUTOMATIC) == EXPECTED


def test_explicit_bindings_and_language_order(local: KnowledgeGraph) -> None:
    text = PREFIXES + (
        "SELECT ?item ?name WHERE { ?item wdt:P31 wd:Q146 . SERVICE wikibase:label { "
        'bd:serviceParam wikibase:language "de,en" . ?item rdfs:label ?name } } ORDER BY ?item'
    )
    assert _rows(local, text) == [
        {"item": "Q1", "name": "Katze"},
        {"item": "Q2", "name": "Q2"},
        {"item": "Q3", "name": "Q3"},
    ]


def test_a_block_the_rewrite_does_not_understand_is_refused(local: KnowledgeGraph) -> None:
    text = PREFIXES + (
        "SELECT ?item WHERE { ?item wdt:P31 wd:Q146 . SERVICE wikibase:label { ?item wdt:P31 ?x . ?x ?p ?o } }"
    )
    with pytest.raises(QueryRejected) as caught:
        local.check(text)
    assert caught.value.reason == "service"


def test_other_services_stay_refused(local: KnowledgeGraph) -> None:
    with pytest.raises(QueryRejected) as caught:
        local.check("SELECT ?s WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }")
    assert caught.value.reason == "service"


def test_wdqs_keeps_its_own_label_service() -> None:
    wdqs = KnowledgeGraph(RemoteEndpoint("http://127.0.0.1:9/sparql", profile=get_profile("wikidata")))
    assert "SERVICE wikibase:label" in wdqs.check(AUTOMATIC).text


def test_labels_on_virtuoso(virtuoso: VirtuosoServer) -> None:
    virtuoso.load(DATA, "http://saga.test/labels")
    graph = KnowledgeGraph(
        open_backend(endpoint=virtuoso.url, profile="virtuoso", default_graphs=["http://saga.test/labels"])
    )
    try:
        assert _rows(graph, AUTOMATIC) == EXPECTED
    finally:
        graph.close()

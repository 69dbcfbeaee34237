"""SERVICE clauses never leave the process: the guard in front of the embedded store (faults.md A3, A4).

pyoxigraph follows SERVICE IRIs over HTTP (faults.md section 3), so the embedded store
is an SSRF vector too. A loopback TCP listener counts every connection it accepts; each
SERVICE variant sent through :class:`KnowledgeGraph` must be rejected with the listener
seeing none, while the controls show that the store itself would connect.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from tests.support.connection_counter import ConnectionCounter

PEOPLE = Path(__file__).resolve().parents[2] / "data" / "guard_people.ttl"


@pytest.fixture
def listener() -> Iterator[ConnectionCounter]:
    counter = ConnectionCounter()
    yield counter
    counter.close()


@pytest.fixture(scope="module")
def graph() -> Iterator[KnowledgeGraph]:
    with KnowledgeGraph(EmbeddedStore.from_files([PEOPLE])) as knowledge_graph:
        yield knowledge_graph


def service_variants(url: str) -> dict[str, str]:
    base, _, path = url.rpartition("/")
    return {
        "plain_iri": f"SELECT * WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }}",
        "silent": f"SELECT * WHERE {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }}",
        "optional": f"SELECT * WHERE {{ ?s a ?t OPTIONAL {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} }}",
        "union": f"SELECT * WHERE {{ {{ ?s a ?t }} UNION {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} }}",
        "filter_exists": f"SELECT * WHERE {{ ?s a ?t FILTER EXISTS {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} }}",
        "filter_not_exists": (
            f"SELECT * WHERE {{ ?s a ?t FILTER NOT EXISTS {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} }}"
        ),
        "subquery": f"SELECT * WHERE {{ {{ SELECT ?s WHERE {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} }} }}",
        "base_relative": f"BASE <{base}/> SELECT * WHERE {{ SERVICE SILENT <{path}> {{ ?s ?p ?o }} }}",
        "prefix": f"PREFIX e: <{base}/> SELECT * WHERE {{ SERVICE SILENT e:{path} {{ ?s ?p ?o }} }}",
        "variable": f"SELECT * WHERE {{ VALUES ?endpoint {{ <{url}> }} SERVICE SILENT ?endpoint {{ ?s ?p ?o }} }}",
        "ask": f"ASK {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }}",
        "construct": f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }}",
    }


VARIANT_NAMES = sorted(service_variants("http://127.0.0.1:1/sparql"))


def test_control_raw_pyoxigraph_follows_service_silent(listener: ConnectionCounter) -> None:
    store = ox.Store()
    store.add(ox.Quad(ox.NamedNode("http://example.org/a"), ox.NamedNode("http://example.org/b"), ox.Literal("c")))
    rows = list(store.query(f"SELECT * WHERE {{ SERVICE SILENT <{listener.url}> {{ ?s ?p ?o }} }}"))
    assert listener.wait_for(1) >= 1
    assert len(rows) == 1  # SILENT swallowed the failure and answered anyway


def test_embedded_store_refuses_service_even_when_the_guard_is_bypassed(
    graph: KnowledgeGraph, listener: ConnectionCounter
) -> None:
    # Raw pyoxigraph follows this SERVICE (the control above); the embedded backend refuses it
    # itself, so a query that slipped past the guard still makes no connection (issue 10, hole 4).
    text = f"SELECT * WHERE {{ SERVICE SILENT <{listener.url}> {{ ?s ?p ?o }} }}"
    with pytest.raises(QueryRejected) as info:
        graph.run(CheckedQuery(text=text, form="SELECT", origin="guard", source_text=text))
    assert info.value.reason == "service"
    assert listener.wait_for(1, within_s=0.5) == 0


def test_guarded_graph_answers_ordinary_queries(graph: KnowledgeGraph) -> None:
    result = graph.query("PREFIX ex: <http://example.org/> SELECT ?who WHERE { ?who a ex:Person } ORDER BY ?who")
    assert [term.value for term in result.column("who")] == ["http://example.org/ada", "http://example.org/charles"]


@pytest.mark.parametrize("name", VARIANT_NAMES)
def test_a3_service_through_the_graph_is_rejected_without_a_connection(
    graph: KnowledgeGraph, listener: ConnectionCounter, name: str
) -> None:
    text = service_variants(listener.url)[name]
    with pytest.raises(QueryRejected) as info:
        graph.query(text)
    assert info.value.reason == "service"
    assert listener.wait_for(1, within_s=0.1) == 0


def test_a4_label_service_is_rewritten_under_the_embedded_profile(
    graph: KnowledgeGraph, listener: ConnectionCounter
) -> None:
    # faults.md A4 allows "rejected, or label fallback"; issue 12 chose the fallback: the block
    # becomes plain label patterns, checked again, and no SERVICE reaches the store.
    assert graph.profile.name == "embedded"
    text = (
        "PREFIX wikibase: <http://wikiba.se/ontology#> PREFIX bd: <http://www.bigdata.com/rdf#>\n"
        "SELECT ?s WHERE { ?s ?p ?o SERVICE wikibase:label { bd:serviceParam wikibase:language 'en' } }"
    )
    checked = graph.check(text)
    assert "SERVICE wikibase:label" not in checked.text and "SERVICE" not in checked.text.split("\n", 2)[-1]
    assert graph.query(text).form == "SELECT"
    assert listener.wait_for(1, within_s=0.1) == 0


def test_wikidata_profile_guard_in_front_of_a_local_store_allows_only_the_label_service(
    listener: ConnectionCounter,
) -> None:
    with KnowledgeGraph(EmbeddedStore.from_files([PEOPLE], profile=get_profile("wikidata"))) as graph:
        checked = graph.check(
            "SELECT ?s WHERE { ?s ?p ?o SERVICE wikibase:label { bd:serviceParam wikibase:language 'en' } }"
        )
        assert checked.form == "SELECT"
        with pytest.raises(QueryRejected):
            graph.query(service_variants(listener.url)["silent"])
    assert listener.wait_for(1, within_s=0.1) == 0

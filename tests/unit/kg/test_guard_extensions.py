"""The guard against engine extensions (issue 10, hole 3).

On Virtuoso, ``bif:http_get`` fetches a URL and returns the body as a row, ``DEFINE``
pragmas switch on the Sponger, and ``FROM <url>`` makes it fetch remote triples. The
guard allows only SPARQL 1.1's built-ins, XSD casts and the functions a profile
declares, rejects every ``DEFINE`` by name, and allows FROM / FROM NAMED only to graphs
the operator allowed (none on remote endpoints, the store's own on embedded ones).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.guard.query_guard import QueryGuard
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph

GENERIC = QueryGuard(get_profile("generic"))
VIRTUOSO = QueryGuard(get_profile("virtuoso"))
WIKIDATA = QueryGuard(get_profile("wikidata"))


@pytest.mark.parametrize(
    "query",
    [
        'PREFIX bif: <bif:> SELECT (bif:http_get("http://127.0.0.1:9/") AS ?x) {}',
        'SELECT (<bif:http_get>("http://127.0.0.1:9/") AS ?x) {}',
        'PREFIX b: <bif:> SELECT ?s { ?s ?p ?o FILTER(b:contains(?o, "x")) }',
        'PREFIX sql: <sql:> SELECT (sql:something("x") AS ?x) {}',
        "SELECT ?s { ?s ?p ?o FILTER(<http://example.org/fn#fetch>(?o)) }",
        "SELECT ?s { ?s ?p ?o FILTER EXISTS { ?s ?q ?v FILTER(<http://example.org/fn#f>(?v)) } }",
        'PREFIX fn: <http://www.w3.org/2005/xpath-functions#> SELECT (fn:doc("http://x/") AS ?d) {}',
    ],
)
@pytest.mark.parametrize("guard", [GENERIC, VIRTUOSO, WIKIDATA], ids=["generic", "virtuoso", "wikidata"])
def test_extension_functions_are_rejected(guard: QueryGuard, query: str) -> None:
    with pytest.raises(QueryRejected) as caught:
        guard.check(query)
    assert caught.value.reason == "function", caught.value.message
    assert "not allowed" in caught.value.message


@pytest.mark.parametrize(
    "query",
    [
        'PREFIX bif: <bif:> SELECT ?s { ?s ?p ?o . ?o bif:contains "saga" }',  # Virtuoso's magic predicate
        'SELECT ?s { ?s ?p ?o . ?o <bif:contains> "saga" }',
        'BASE <bif:> SELECT ?s { ?s ?p ?o . ?o <contains> "saga" }',
    ],
)
def test_bif_and_sql_iris_are_rejected_anywhere(query: str) -> None:
    with pytest.raises(QueryRejected) as caught:
        VIRTUOSO.check(query)
    assert caught.value.reason == "function", caught.value.message


@pytest.mark.parametrize(
    "query",
    [
        'DEFINE get:soft "replace" SELECT * FROM <http://127.0.0.1:9/data.ttl> WHERE { ?s ?p ?o }',
        'DEFINE input:grab-all "yes" SELECT ?s WHERE { ?s ?p ?o }',
        "define sql:log-enable 3 SELECT ?s WHERE { ?s ?p ?o }",
    ],
)
def test_virtuoso_define_pragmas_are_rejected_by_name(query: str) -> None:
    with pytest.raises(QueryRejected) as caught:
        VIRTUOSO.check(query)
    assert caught.value.reason == "pragma"
    assert "DEFINE" in caught.value.message and "line 1, column 1" in caught.value.message


def test_sparql_builtins_casts_and_profile_functions_pass() -> None:
    GENERIC.check(
        'SELECT ?s (STRLEN(STR(?o)) AS ?n) (xsd:integer("3") AS ?i) (xsd:dateTime("2020-01-01T00:00:00Z") AS ?t) '
        '(COUNT(*) AS ?c) WHERE { ?s ?p ?o FILTER(REGEX(STR(?o), "a") && LANG(?o) = "en" && isIRI(?s)) } GROUP BY ?s ?o'
    )
    WIKIDATA.check("SELECT ?d WHERE { wd:Q90 wdt:P625 ?a . wd:Q64 wdt:P625 ?b . BIND(geof:distance(?a, ?b) AS ?d) }")
    with pytest.raises(QueryRejected, match="not allowed"):
        GENERIC.check(
            "PREFIX geof: <http://www.opengis.net/def/function/geosparql/> "
            "SELECT ?d WHERE { ?x ?p ?a . ?y ?p ?b . BIND(geof:distance(?a, ?b) AS ?d) }"
        )


@pytest.mark.parametrize(
    "query",
    [
        "SELECT ?s FROM <http://127.0.0.1:9/data.ttl> WHERE { ?s ?p ?o }",
        "SELECT ?s FROM NAMED <http://127.0.0.1:9/data.ttl> WHERE { GRAPH ?g { ?s ?p ?o } }",
        "BASE <http://127.0.0.1:9/> SELECT ?s FROM <data.ttl> WHERE { ?s ?p ?o }",
        "ASK FROM <http://127.0.0.1:9/x> { ?s ?p ?o }",
    ],
)
@pytest.mark.parametrize("guard", [GENERIC, VIRTUOSO, WIKIDATA], ids=["generic", "virtuoso", "wikidata"])
def test_from_on_a_remote_endpoint_is_rejected_by_default(guard: QueryGuard, query: str) -> None:
    with pytest.raises(QueryRejected) as caught:
        guard.check(query)
    assert caught.value.reason == "graph"
    assert "FROM" in caught.value.message


def test_from_is_allowed_to_graphs_the_operator_allowed() -> None:
    guard = QueryGuard(get_profile("generic"), allowed_graphs=frozenset({"http://example.org/g"}))
    guard.check("SELECT ?s FROM <http://example.org/g> WHERE { ?s ?p ?o }")
    with pytest.raises(QueryRejected, match=r"allowed: <http://example\.org/g>"):
        guard.check("SELECT ?s FROM <http://example.org/other> WHERE { ?s ?p ?o }")


def test_from_on_the_embedded_store_allows_only_its_own_named_graphs(tmp_path: Path) -> None:
    data = tmp_path / "graphs.trig"
    data.write_text(
        "<http://example.org/g1> { <http://example.org/a> <http://example.org/p> <http://example.org/b> . }\n"
        "<http://example.org/g2> { <http://example.org/c> <http://example.org/p> <http://example.org/d> . }\n",
        encoding="utf-8",
    )
    with KnowledgeGraph(EmbeddedStore.from_files([data])) as graph:
        result = graph.query("SELECT ?s FROM <http://example.org/g1> WHERE { ?s ?p ?o }")
        # Accepted and run (the embedded store reads its default graph as the union of all graphs).
        assert "http://example.org/a" in [row["s"].value for row in result.rows]
        named = graph.query("SELECT ?s FROM NAMED <http://example.org/g2> WHERE { GRAPH ?g { ?s ?p ?o } }")
        assert [row["s"].value for row in named.rows] == ["http://example.org/c"]
        with pytest.raises(QueryRejected) as caught:
            graph.query("SELECT ?s FROM <http://127.0.0.1:9/data.ttl> WHERE { ?s ?p ?o }")
        assert caught.value.reason == "graph"

"""The real SPARQLWrapper path against a real SPARQL protocol server (``oxigraph serve-read-only``)."""

from __future__ import annotations

import pytest

from saga_kgqa.errors import QuerySyntaxError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.remote.endpoint import RemoteEndpoint
from tests.support.oxigraph_server import OxigraphServer

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
PREFIXES = f"PREFIX ex: <{EX}>\n"


def endpoint(server: OxigraphServer, method: str = "auto") -> RemoteEndpoint:
    return RemoteEndpoint(server.url, profile=get_profile("generic"), method=method)  # type: ignore[arg-type]


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_select_returns_every_term_kind_losslessly(oxigraph: OxigraphServer, method: str) -> None:
    query = from_template(PREFIXES + "SELECT ?p ?o WHERE { ex:alice ?p ?o } ORDER BY ?p ?o")
    result = endpoint(oxigraph, method).execute(query)

    assert result.variables == ["p", "o"]
    assert result.complete and not result.truncated
    by_property: dict[str, list[Term]] = {}
    for row in result.rows:
        by_property.setdefault(row["p"].value.removeprefix(EX), []).append(row["o"])
    assert sorted(by_property["name"], key=lambda term: term.value) == [
        Term("literal", "Alice", lang="en"),
        Term("literal", "Alicia", lang="es-es"),  # oxigraph normalises language tags to lower case
    ]
    assert by_property["age"] == [Term("literal", "42", datatype=XSD + "integer")]
    assert by_property["born"] == [Term("literal", "1990-01-02", datatype=XSD + "date")]
    assert by_property["knows"] == [Term("uri", EX + "bob")]
    assert [term.kind for term in by_property["address"]] == ["bnode"]
    assert by_property["motto"] == [Term("literal", 'naïve café — 𝄞 "quoted"\nsecond line')]
    assert by_property["plain"] == [Term("literal", "just a string")]


def test_optional_leaves_an_unbound_variable_absent(oxigraph: OxigraphServer) -> None:
    query = from_template(
        PREFIXES + "SELECT ?name ?age WHERE { ?x ex:name ?name OPTIONAL { ?x ex:age ?age } } ORDER BY ?name"
    )
    rows = endpoint(oxigraph).execute(query).rows

    bob = next(row for row in rows if row["name"].value == "Bob")
    carol = next(row for row in rows if row["name"].value == "Carol")
    assert "age" not in bob
    assert carol["age"] == Term("literal", "35", datatype=XSD + "integer")


def test_ask_answers_true_and_false(oxigraph: OxigraphServer) -> None:
    backend = endpoint(oxigraph)
    assert backend.execute(from_template(PREFIXES + "ASK { ex:alice ex:knows ex:bob }", "ASK")).boolean is True
    assert backend.execute(from_template(PREFIXES + "ASK { ex:bob ex:knows ex:alice }", "ASK")).boolean is False


def test_a_syntax_error_is_query_syntax_error_with_the_server_text(oxigraph: OxigraphServer) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        endpoint(oxigraph).execute(from_template("SELECT ?s WHERE { ?s ?p ?o"))
    assert caught.value.server_text
    assert caught.value.server_text in caught.value.message


def test_row_cap_truncates_a_cross_product(oxigraph: OxigraphServer) -> None:
    query = from_template("SELECT * WHERE { ?a ?b ?c . ?d ?e ?f }")
    result = endpoint(oxigraph).execute(query, ExecutionLimits(max_rows=5))

    assert len(result.rows) == 5
    assert result.truncated
    assert result.notes == ["stopped after 5 rows (row cap)"]


def test_byte_cap_keeps_a_prefix_of_the_complete_answer(oxigraph: OxigraphServer) -> None:
    query = from_template("SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?a ?b ?c ?d ?e ?f")
    backend = endpoint(oxigraph)
    whole = backend.execute(query)
    cut = backend.execute(query, ExecutionLimits(max_bytes=2000))

    assert not whole.truncated
    assert cut.truncated
    assert 0 < len(cut.rows) < len(whole.rows)
    assert cut.rows == whole.rows[: len(cut.rows)]


def test_construct_comes_back_as_triples(oxigraph: OxigraphServer) -> None:
    query = from_template(PREFIXES + "CONSTRUCT { ?s ex:called ?n } WHERE { ?s ex:name ?n }", "CONSTRUCT")
    result = endpoint(oxigraph).execute(query)

    assert result.variables == ["subject", "predicate", "object"]
    assert {(row["subject"].value, row["object"].value) for row in result.rows} == {
        (EX + "alice", "Alice"),
        (EX + "alice", "Alicia"),
        (EX + "bob", "Bob"),
        (EX + "carol", "Carol"),
    }


def test_b17_no_match_is_an_empty_result(oxigraph: OxigraphServer) -> None:
    result = endpoint(oxigraph).execute(from_template(PREFIXES + "SELECT ?x WHERE { ?x ex:nothing ?y }"))
    assert result.rows == [] and result.variables == ["x"]
    assert not result.truncated

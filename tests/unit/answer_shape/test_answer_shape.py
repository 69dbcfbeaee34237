"""The shape rule: the scored query keeps answer columns; labels stay in the display query."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from saga_kgqa.answer_shape import shape_query

PREFIXES = "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\nPREFIX ex: <http://example.org/>\n"


def test_a_label_of_a_projected_entity_is_dropped_and_kept_for_display() -> None:
    text = (
        PREFIXES
        + "SELECT ?dept ?deptLabel WHERE { ex:ann ex:memberOf ?dept . OPTIONAL { ?dept rdfs:label ?deptLabel } }"
    )
    shaped = shape_query(text, "In which department is Ann?")
    assert shaped.dropped == ("deptLabel",)
    assert shaped.display == text
    assert "?deptLabel" not in shaped.scored.split("WHERE")[0]
    store = ox.Store()
    store.add(
        ox.Quad(
            ox.NamedNode("http://example.org/ann"),
            ox.NamedNode("http://example.org/memberOf"),
            ox.NamedNode("http://example.org/d1"),
        )
    )
    store.add(
        ox.Quad(
            ox.NamedNode("http://example.org/d1"),
            ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label"),
            ox.Literal("Sales"),
        )
    )
    result = store.query(shaped.scored)
    assert isinstance(result, ox.QuerySolutions)
    assert [v.value for v in result.variables] == ["dept"]
    assert [row["dept"] for row in result] == [ox.NamedNode("http://example.org/d1")]


def test_a_label_whose_entity_is_not_projected_is_the_answer() -> None:
    text = PREFIXES + "SELECT ?name WHERE { ex:ann ex:memberOf ?dept . ?dept rdfs:label ?name }"
    assert shape_query(text).dropped == ()
    assert shape_query(text).scored == text


@pytest.mark.parametrize(
    "question",
    [
        "Give me the departments and their names.",
        "Wie heißt die Abteilung von Ann, mit Namen?",
        "¿Cuál es el nombre del departamento de Ann?",
    ],
)
def test_a_question_that_asks_for_names_keeps_the_labels(question: str) -> None:
    text = PREFIXES + "SELECT ?dept ?deptLabel WHERE { ex:ann ex:memberOf ?dept . ?dept rdfs:label ?deptLabel }"
    assert shape_query(text, question).dropped == ()
    assert shape_query(text, "Which department is Ann in?").dropped == ("deptLabel",)


def test_labels_of_group_keys_stay_and_aggregates_order_and_limit_are_untouched() -> None:
    grouped = (
        PREFIXES + "SELECT ?cat ?catLabel (COUNT(?x) AS ?n) WHERE { ?x ex:cat ?cat . ?cat rdfs:label ?catLabel } "
        "GROUP BY ?cat ?catLabel ORDER BY DESC(?n) LIMIT 3"
    )
    assert shape_query(grouped).dropped == ()
    ranked = (
        PREFIXES + "SELECT ?p ?pLabel ?price WHERE { ?p ex:price ?price . OPTIONAL { ?p rdfs:label ?pLabel } } "
        "ORDER BY DESC(?price) LIMIT 5"
    )
    shaped = shape_query(ranked, "Which are the five most expensive products?")
    assert shaped.dropped == ("pLabel",)
    assert "ORDER BY DESC(?price) LIMIT 5" in shaped.scored
    assert "?p  ?price" in shaped.scored or "?p ?price" in shaped.scored


def test_a_label_also_used_elsewhere_is_not_display_only() -> None:
    text = PREFIXES + "SELECT ?p ?l WHERE { ?p rdfs:label ?l . ?q ex:sameName ?l }"
    assert shape_query(text).dropped == ()


def test_wikidata_label_service_columns_are_dropped_beside_their_entity() -> None:
    text = (
        "PREFIX wdt: <http://www.wikidata.org/prop/direct/>\nPREFIX wd: <http://www.wikidata.org/entity/>\n"
        "PREFIX wikibase: <http://wikiba.se/ontology#>\nPREFIX bd: <http://www.bigdata.com/rdf#>\n"
        "SELECT ?city ?cityLabel WHERE { ?city wdt:P31 wd:Q515 . "
        'SERVICE wikibase:label { bd:serviceParam wikibase:language "en". } }'
    )
    assert shape_query(text).dropped == ("cityLabel",)


@pytest.mark.parametrize(
    "text",
    [
        PREFIXES + "ASK { ex:a rdfs:label ?l }",
        PREFIXES + "SELECT * WHERE { ?p rdfs:label ?l }",
        "SELECT ?x ?l WHERE { ?x <http://www.w3.org/2000/01/rdf-schema#label> ?l",  # unbalanced: left alone
        "",
    ],
)
def test_what_the_rule_cannot_read_comes_back_unchanged(text: str) -> None:
    shaped = shape_query(text)
    assert shaped.scored == text and shaped.dropped == ()


def test_the_sources_own_label_property_is_a_display_column_too() -> None:
    # Freebase names things with type.object.name; a private graph may use its own property.
    text = (
        "PREFIX ns: <http://rdf.freebase.com/ns/> "
        "SELECT ?film ?name WHERE { ?film ns:film.film.directed_by ns:m.0x ; ns:type.object.name ?name }"
    )
    assert shape_query(text, "Which films did he direct?").dropped == ()
    shaped = shape_query(
        text, "Which films did he direct?", label_properties=["http://rdf.freebase.com/ns/type.object.name"]
    )
    assert shaped.dropped == ("name",)
    assert shaped.display == text

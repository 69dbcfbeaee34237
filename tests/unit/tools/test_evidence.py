"""Evidence per answer row: the positive patterns of a query, and the one query that reads their triples."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.state.records import Answer
from saga_kgqa.tools.evidence.gather import EvidenceSettings, gather_evidence
from saga_kgqa.tools.evidence.patterns import query_blocks

EX = "http://example.org/e/"
TTL = f"""
@prefix ex: <{EX}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:ann ex:worksIn ex:sales ; ex:age 41 ; rdfs:label "Ann"@en ; a ex:Manager .
ex:bob ex:worksIn ex:sales ; ex:age 35 ; rdfs:label "Bob"@en ; a ex:Employee .
ex:cyd ex:worksIn ex:lab ; ex:age 29 ; ex:fired true ; a ex:Employee .
ex:Manager rdfs:subClassOf ex:Employee .
ex:sales rdfs:label "Sales"@en .
"""
PREFIX = f"PREFIX ex: <{EX}> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> "
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeGraph]:
    path = Path(tmp_path_factory.mktemp("evidence")) / "e.ttl"
    path.write_text(TTL)
    with EmbeddedStore.from_files([path]) as store:
        yield KnowledgeGraph(store)


def _evidence(graph: KnowledgeGraph, sparql: str, rows: int = 20) -> tuple[Answer, object]:
    result = graph.query(PREFIX + sparql)
    answer = Answer(
        variables=tuple(result.variables),
        rows=tuple({k: v.value for k, v in row.items()} for row in result.rows),
        boolean=result.boolean,
        row_count=len(result.rows),
    )
    settings = EvidenceSettings(rows=rows)
    return answer, gather_evidence(
        graph, PREFIX + sparql, answer, prefixes={"ex": EX}, label_predicates=[LABEL], settings=settings
    )


def test_minus_and_not_exists_patterns_support_nothing() -> None:
    blocks = query_blocks(
        PREFIX + "SELECT ?x WHERE { ?x ex:worksIn [ rdfs:label ?d ] . OPTIONAL { ?x ex:age ?a } "
        "MINUS { ?x ex:fired true } FILTER NOT EXISTS { ?x a ex:Intern } }",
        {},
    )
    texts = [block.text() for block in blocks]
    assert len(blocks) == 2 and all("fired" not in t and "Intern" not in t for t in texts)
    # A [] blank node is a variable of its block.
    assert set(blocks[0].variables) == {"x", "_b0", "d"}


def test_every_row_gets_its_own_triples_with_labels(graph: KnowledgeGraph) -> None:
    answer, evidence = _evidence(graph, "SELECT ?p ?age WHERE { ?p ex:worksIn ex:sales ; ex:age ?age } ORDER BY ?p")
    assert evidence.rows_checked == 2 and evidence.rows_supported == 2
    for row in evidence.rows:
        person = answer.rows[row.row]["p"]
        assert {t.subject.value for t in row.triples} == {person}
        assert {t.predicate.short for t in row.triples} == {"ex:worksIn", "ex:age"}
    ann = next(row for row in evidence.rows if answer.rows[row.row]["p"] == EX + "ann")
    assert ann.triples[0].subject.text() == "Ann (ex:ann)" and ann.triples[0].object.label == "Sales"
    assert [t.object.value for t in ann.triples if t.predicate.short == "ex:age"] == ["41"]


def test_unprojected_variables_paths_and_aggregates_are_supported(graph: KnowledgeGraph) -> None:
    _answer, evidence = _evidence(graph, "SELECT ?name WHERE { ?p a/rdfs:subClassOf* ex:Employee ; rdfs:label ?name }")
    assert evidence.rows_checked == 2 and evidence.rows_supported == 2
    _answer, counted = _evidence(graph, "SELECT (COUNT(?p) AS ?n) WHERE { ?p ex:worksIn ex:sales }")
    (row,) = counted.rows
    assert sorted(t.subject.value for t in row.triples) == [EX + "ann", EX + "bob"]


def test_ask_true_is_supported_and_false_says_why_not(graph: KnowledgeGraph) -> None:
    _answer, yes = _evidence(graph, "ASK { ex:ann ex:worksIn ex:sales }")
    assert yes.rows_supported == 1 and yes.rows[0].row == -1
    _answer, no = _evidence(graph, "ASK { ex:ann ex:worksIn ex:lab }")
    assert not no.rows and "false" in no.note


def test_the_row_cap_bounds_the_rows_read(graph: KnowledgeGraph) -> None:
    _answer, evidence = _evidence(graph, "SELECT ?p WHERE { ?p ex:age ?a }", rows=1)
    assert evidence.rows_checked == 1 and len(evidence.rows) == 1 and evidence.row_cap == 1

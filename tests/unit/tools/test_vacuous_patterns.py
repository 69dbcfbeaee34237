"""The pre-execution check blocks required patterns that match nothing, saying what to use instead (issue 13)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex, build_schema_index
from saga_kgqa.tools.execute.tool import execute

DATA = Path(__file__).parents[2] / "data" / "hiding" / "partial_hierarchy.ttl"
EX = "PREFIX ex: <http://example.org/hide/>\n"


@pytest.fixture(scope="module")
def graph() -> Iterator[tuple[KnowledgeGraph, SchemaIndex]]:
    with EmbeddedStore.from_files([DATA]) as store:
        yield KnowledgeGraph(store), build_schema_index(store, induce=False)


def _run(graph: tuple[KnowledgeGraph, SchemaIndex], sparql: str) -> tuple[str, str]:
    outcome = execute(EX + sparql, graph=graph[0], schema=graph[1])
    return outcome.status, outcome.text


def test_a_class_without_direct_instances_names_its_subclasses_with_instances(
    graph: tuple[KnowledgeGraph, SchemaIndex],
) -> None:
    status, text = _run(graph, "SELECT ?x WHERE { ?x a ex:Product }")
    assert status == "blocked"
    assert "ex:Product has no direct instances; its subclasses ex:Hardware have" in text


def test_an_invented_property_names_the_nearest_existing_one(graph: tuple[KnowledgeGraph, SchemaIndex]) -> None:
    status, text = _run(graph, "SELECT ?x ?p WHERE { ?x ex:prices ?p }")
    assert status == "blocked"
    assert "ex:prices occurs nowhere in the graph; the nearest existing properties are ex:price" in text


def test_optional_ask_and_implicit_aggregates_are_never_blocked(graph: tuple[KnowledgeGraph, SchemaIndex]) -> None:
    assert _run(graph, "SELECT ?x ?p WHERE { ?x a ex:Hardware OPTIONAL { ?x ex:prices ?p } }")[0] == "ok"
    assert _run(graph, "ASK { ?x a ex:Product }")[0] == "ok"
    assert _run(graph, "SELECT (COUNT(?x) AS ?n) WHERE { ?x a ex:Product }")[0] == "ok"
    assert _run(graph, "SELECT ?x WHERE { { ?x a ex:Product } UNION { ?x a ex:Hardware } }")[0] == "ok"


def test_a_grouped_aggregate_over_nothing_is_blocked(graph: tuple[KnowledgeGraph, SchemaIndex]) -> None:
    status, _text = _run(graph, "SELECT ?x (COUNT(?p) AS ?n) WHERE { ?x a ex:Product ; ex:price ?p } GROUP BY ?x")
    assert status == "blocked"

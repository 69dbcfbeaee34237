"""The grounding measurement with the real tools: a small typed graph, then the first CK25 questions."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.grounding_eval.measurement import MeasureSettings, measure_graph
from bench.grounding_eval.probe import ToolkitProbe
from bench.grounding_eval.report import merged, result_line

from saga_kgqa.benchmarks.datasets import GoldQuestion, load_ck25
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import build_schema_index
from tests.support.required import missing

EX = "http://example.org/"
GRAPH = f"""
@prefix ex: <{EX}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:Agent a owl:Class .
ex:Employee a owl:Class ; rdfs:subClassOf ex:Agent .
ex:Product a owl:Class .
ex:name rdfs:domain ex:Agent .
ex:salary rdfs:domain ex:Employee .
ex:price rdfs:domain ex:Product .
ex:weight rdfs:domain ex:Product .
ex:ann a ex:Employee ; ex:name "Ann" ; ex:salary 10 .
ex:bob a ex:Employee ; ex:name "Bob" ; ex:salary 20 .
ex:box a ex:Product ; ex:price 3 ; ex:weight 5 .
"""
QUESTIONS = [
    GoldQuestion("t:1", "t", "Names?", f"PREFIX ex: <{EX}> SELECT ?n WHERE {{ ?e ex:name ?n }}"),
    GoldQuestion("t:2", "t", "Ann's salary?", f"PREFIX ex: <{EX}> SELECT ?s WHERE {{ ex:ann ex:salary ?s }}"),
    GoldQuestion("t:3", "t", "Prices?", f"PREFIX ex: <{EX}> SELECT ?p WHERE {{ ?x a ex:Product ; ex:price ?p }}"),
]


@pytest.fixture
def small_graph(tmp_path: Path) -> Path:
    path = tmp_path / "small.ttl"
    path.write_text(GRAPH)
    return path


def test_the_real_tools_retain_gold_properties_and_block_every_swap(small_graph: Path) -> None:
    with EmbeddedStore.from_files([small_graph]) as store:
        schema = build_schema_index(store, induce=False)
        probe = ToolkitProbe(KnowledgeGraph(store), schema, prefixes={"ex": EX})
        result = measure_graph("t", QUESTIONS, probe, schema, MeasureSettings(prefixes={"ex": EX}))
    assert result.errors == []
    subclass, exact = result.modes["subclass"], result.modes["exact"]
    assert (subclass.retained_uses, subclass.typed_uses) == (3, 3)
    # Exact mode hides ex:name from Employees (its domain is the superclass Agent).
    assert [lost.property_iri for lost in exact.lost] == [EX + "name"]
    assert subclass.false_blocks == {} and exact.false_blocks == {}
    assert subclass.swaps == 3 and subclass.detected == 3
    # t:1 has no type pattern and no constant: only the sampled types let the check block its swap.
    assert subclass.detected_without_trace == 2
    assert {sample.entity for sample in result.tokens} == {EX + "ann", EX + "bob", EX + "box"}
    assert all(sample.compact_tokens > 0 and sample.raw_tokens > 0 for sample in result.tokens)


@pytest.mark.shared_data
def test_first_ck25_questions_have_no_false_block(data_dir: Path) -> None:
    graph = load_ck25(data_dir)
    if graph is None:
        missing("CK25 graph absent")
    with EmbeddedStore.from_files(graph.files) as store:
        schema = build_schema_index(store, induce=False)
        probe = ToolkitProbe(KnowledgeGraph(store), schema)
        result = measure_graph("ck25", graph.questions[:4], probe, schema, MeasureSettings(samples=3))
    assert result.errors == []
    assert result.modes["subclass"].false_blocks == {}
    assert result.modes["subclass"].typed_uses >= 4
    assert result.modes["subclass"].swaps >= 3
    assert result_line(merged([result])).startswith("RESULT retention=")

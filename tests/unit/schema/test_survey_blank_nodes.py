"""Surveys sample blank-node instances like any other (issue 22, point 3)."""

from __future__ import annotations

from pathlib import Path

from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema.survey import survey_source
from saga_kgqa.schema.survey_model import SurveyLimits

EX = "http://example.org/bn/"
GRAPH = f"""
@prefix ex: <{EX}> .
ex:r1 a ex:Restriction ; ex:onProperty ex:p1 .
[] a ex:Restriction ; ex:onProperty ex:p2 ; ex:someValuesFrom ex:C .
[] a ex:Restriction ; ex:onProperty ex:p3 ; ex:someValuesFrom ex:D .
[] a ex:Shape ; ex:path ex:p1 ; ex:minCount 1 .
[] a ex:Shape ; ex:path ex:p2 ; ex:minCount 0 .
"""


def test_blank_node_instances_are_sampled_and_their_properties_reported(tmp_path: Path) -> None:
    path = tmp_path / "g.ttl"
    path.write_text(GRAPH, encoding="utf-8")
    with EmbeddedStore.from_files([path]) as store:
        survey = survey_source(KnowledgeGraph(store), source="bn", limits=SurveyLimits(max_instances=10))
    by_class = {c.iri: {p.iri: p.instances_using for p in c.properties} for c in survey.classes}
    # A class whose instances are all blank nodes is listed with its properties.
    assert by_class[EX + "Shape"] == {EX + "path": 2, EX + "minCount": 2}
    # A property that only blank-node instances use is reported, counted over every sampled instance.
    assert by_class[EX + "Restriction"] == {EX + "onProperty": 3, EX + "someValuesFrom": 2}
    assert EX + "someValuesFrom" in survey.index.properties
    assert survey.index.properties[EX + "minCount"].domain == frozenset({EX + "Shape"})


def test_blank_node_sampling_stays_bounded(tmp_path: Path) -> None:
    path = tmp_path / "g.ttl"
    many = "\n".join(f"[] a <{EX}Shape> ; <{EX}path> <{EX}p{i}> ." for i in range(40))
    path.write_text(many, encoding="utf-8")
    with EmbeddedStore.from_files([path]) as store:
        survey = survey_source(KnowledgeGraph(store), source="bn", limits=SurveyLimits(max_instances=5))
    (shape,) = survey.classes
    assert shape.instances == 40
    assert {p.iri: p.instances_using for p in shape.properties} == {EX + "path": 5}


def test_a_property_only_instances_beyond_the_sample_use_is_still_reported(tmp_path: Path) -> None:
    # Brick's shape: 1,750 NodeShapes, sh:sparql on 3 of them; a 300-instance sample missed it.
    path = tmp_path / "g.ttl"
    many = "\n".join(f"[] a <{EX}Shape> ; <{EX}path> <{EX}p{i}> ." for i in range(40))
    path.write_text(many + f"\n[] a <{EX}Shape> ; <{EX}sparql> 'ASK {{}}' .\n", encoding="utf-8")
    with EmbeddedStore.from_files([path]) as store:
        limits = SurveyLimits(max_instances=5)
        survey = survey_source(KnowledgeGraph(store), source="bn", limits=limits)
    (shape,) = survey.classes
    assert EX + "sparql" in {p.iri for p in shape.properties}
    assert survey.requests <= limits.max_requests()


def test_the_read_beyond_the_sample_is_bounded_and_the_coverage_says_so(tmp_path: Path) -> None:
    # issue 39: the read for properties the sample missed covered every instance of the class, so its cost grew
    # with the graph (a tenth of `saga load`'s surplus at 10M triples). It now reads a bounded number of instances.
    many = "\n".join(f"<{EX}s{i}> a <{EX}Shape> ; <{EX}path> <{EX}p{i}> ." for i in range(41))
    plain = tmp_path / "plain.ttl"
    plain.write_text(many, encoding="utf-8")
    with EmbeddedStore.from_files([plain]) as store:  # the store's order of the instances (by IRI hash)
        order = [row["s"].value for row in store.execute(from_template(f"SELECT ?s WHERE {{ ?s a <{EX}Shape> }}")).rows]
    path = tmp_path / "g.ttl"  # the instance read last is the only one using sparql
    path.write_text(many + f"\n<{order[-1]}> <{EX}sparql> 'ASK {{}}' .\n", encoding="utf-8")
    with EmbeddedStore.from_files([path]) as store:
        graph = KnowledgeGraph(store)
        bounded = survey_source(graph, source="g", limits=SurveyLimits(max_instances=5, beyond_instances=20))
        wide = survey_source(graph, source="g", limits=SurveyLimits(max_instances=5, beyond_instances=100))
    (shape,) = bounded.classes
    assert {p.iri for p in shape.properties} == {EX + "path"}  # sampled and scanned instances never use sparql
    assert any("over 20 instances" in line for line in bounded.coverage())
    assert EX + "sparql" in {p.iri for p in wide.classes[0].properties}
    assert not any("later instances" in line for line in wide.coverage())

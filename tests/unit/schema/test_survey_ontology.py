"""An OWL ontology is surveyed as one: its terms are its entities (issue 42, point 1)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.app.sources import open_source_toolbox
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema.survey import survey_source
from saga_kgqa.schema.survey_model import SourceSurvey, SurveyLimits
from saga_kgqa.schema.survey_ontology import longest_chain
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.sources.summary import source_summary
from tests.conftest import TEST_DATA

ONTOLOGY = TEST_DATA / "ontology" / "phenotypes.ttl"
OWL = "http://www.w3.org/2002/07/owl#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
OIO = "http://www.geneontology.org/formats/oboInOwl#"
PH = "http://example.org/ph/"


@pytest.fixture(scope="module")
def survey() -> Iterator[SourceSurvey]:
    with EmbeddedStore.from_files([ONTOLOGY]) as store:
        yield survey_source(KnowledgeGraph(store), source="ph", limits=SurveyLimits())


def test_terms_are_surveyed_with_their_predicates(survey: SourceSurvey) -> None:
    by_class = {c.iri: {p.iri for p in c.properties} for c in survey.classes}
    # Before issue 42: 0 classes (every class of the OWL namespace was skipped).
    assert OWL + "Class" in by_class
    assert {RDFS + "label", RDFS + "subClassOf", OIO + "hasExactSynonym", OIO + "id"} <= by_class[OWL + "Class"]
    # Restrictions and axiom annotations, reached through blank nodes.
    assert {OWL + "onProperty", OWL + "someValuesFrom"} <= by_class[OWL + "Restriction"]
    assert {OWL + "annotatedSource", OWL + "annotatedTarget", OIO + "hasDbXref"} <= by_class[OWL + "Axiom"]
    assert OIO + "hasExactSynonym" in survey.index.properties
    assert survey.requests <= survey.limits.max_requests()


def test_every_predicate_is_shown(survey: SourceSurvey) -> None:
    with EmbeddedStore.from_files([ONTOLOGY]) as store:
        used = {r["p"].value for r in KnowledgeGraph(store).query("SELECT DISTINCT ?p WHERE { ?s ?p ?o }").rows}
    assert survey.ontology is not None
    shown = {p.iri for c in survey.classes for p in c.properties} | set(survey.ontology.structures)
    assert used - {RDF + "type"} <= shown


def test_the_profile_describes_the_ontology(survey: SourceSurvey) -> None:
    profile = survey.ontology
    assert profile is not None
    assert profile.terms == 8  # seven named terms and the union's anonymous class
    assert profile.depth == 3  # T3 ⊑ T2 ⊑ T1 ⊑ T0
    assert OIO + "hasExactSynonym" in profile.annotation_properties
    (relation,) = profile.relation_properties
    assert (relation.property, relation.uses, relation.term, relation.filler) == (
        PH + "partOf",
        1,
        PH + "T3",
        PH + "T9",
    )
    assert {RDF + "first", RDF + "rest"} <= set(profile.structures)


def test_the_summary_describes_an_ontology(tmp_path: Path) -> None:
    catalog = Catalog(sources={"ph": SourceRecord(name="ph", data=(ONTOLOGY,))}, default_source="ph")
    with SourceSet(catalog, survey_dir=tmp_path / "cache") as sources:
        text = source_summary(sources, "ph").text
    assert "ontology: 8 terms" in text
    assert "hierarchy depth 3" in text
    assert "hasExactSynonym" in text
    assert "partOf" in text and "rdfs:subClassOf" in text


def test_a_data_graph_with_a_few_declared_classes_keeps_its_data_classes_only(tmp_path: Path) -> None:
    path = tmp_path / "g.ttl"
    rows = "\n".join(f"<{PH}p{i}> a <{PH}Person> ; <{RDFS}label> 'person {i}' ." for i in range(20))
    path.write_text(f"<{PH}Person> a <{OWL}Class> .\n{rows}\n", encoding="utf-8")
    with EmbeddedStore.from_files([path]) as store:
        found = survey_source(KnowledgeGraph(store), source="g")
    assert [c.iri for c in found.classes] == [PH + "Person"]
    assert found.ontology is None


def test_longest_chain_survives_cycles() -> None:
    assert longest_chain({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) >= 2
    assert longest_chain({"a": ["b", "c"], "c": ["d"]}) == 2


PREFIXES = f"PREFIX rdfs: <{RDFS}> PREFIX owl: <{OWL}> PREFIX oio: <{OIO}> PREFIX ph: <{PH}> "  # the check's queries


@pytest.mark.parametrize(
    ("query", "blocked"),
    [
        ("SELECT ?t ?l WHERE { ?t rdfs:subClassOf+ ph:T1 ; rdfs:label ?l }", []),
        ("SELECT ?t WHERE { ?t oio:hasExactSynonym ?s ; a owl:Class }", []),
        ("SELECT ?t ?f WHERE { ?t rdfs:subClassOf ?r . ?r owl:onProperty ph:partOf ; owl:someValuesFrom ?f }", []),
        ("SELECT ?a WHERE { ?a owl:annotatedSource ph:T2 ; owl:annotatedTarget ?synonym }", []),
        # The terms' classes are data: an axiom has no oio:id, a restriction no label.
        ("SELECT ?x WHERE { ?x a owl:Axiom ; oio:id ?id }", ["?x oio:id ?id"]),
        ("SELECT ?x WHERE { ?x a owl:Restriction ; rdfs:label ?l }", ["?x rdfs:label ?l"]),
    ],
)
def test_the_type_check_reads_the_ontology_as_data(survey: SourceSurvey, query: str, blocked: list[str]) -> None:
    from saga_kgqa.state import TypeState
    from saga_kgqa.tools.execute.preflight import preflight

    with EmbeddedStore.from_files([ONTOLOGY]) as store:
        checks = preflight(PREFIXES + query, graph=KnowledgeGraph(store), schema=survey.index, theta=TypeState())
    assert [b.pattern for b in checks.report.blocked] == blocked
    assert not checks.vacuous


def test_lookup_keeps_a_terms_hierarchy_and_synonyms(tmp_path: Path) -> None:
    catalog = Catalog(sources={"ph": SourceRecord(name="ph", data=(ONTOLOGY,))}, default_source="ph")
    with SourceSet(catalog, survey_dir=tmp_path / "cache", toolboxes=open_source_toolbox) as sources:
        result = sources.get("ph").toolbox().default_view().lookup(f"<{PH}T2>")
    kept = {k.info.property.iri for k in result.kept}
    assert {RDFS + "subClassOf", OIO + "hasExactSynonym", OIO + "hasRelatedSynonym"} <= kept
    assert not result.hidden


def test_individuals_marked_named_individual_stay_a_data_graph(tmp_path: Path) -> None:
    # A Protégé export types every individual owl:NamedIndividual beside its class: not an ontology's terms.
    path = tmp_path / "g.ttl"
    rows = "\n".join(f"<{PH}p{i}> a <{OWL}NamedIndividual>, <{PH}Person> ." for i in range(20))
    classes = "\n".join(f"<{PH}C{i}> a <{OWL}Class> ." for i in range(5))
    path.write_text(f"{classes}\n{rows}\n", encoding="utf-8")
    with EmbeddedStore.from_files([path]) as store:
        found = survey_source(KnowledgeGraph(store), source="g")
    assert [c.iri for c in found.classes] == [PH + "Person"]
    assert found.ontology is None

"""Lookup hides only with evidence (issue 22, point 2).

On a surveyed schema, a property's domain is what sampled instances of the surveyed classes
use: an entity of a class outside the survey that carries the property proves the domain
partial, so its own properties stay. Labels and names are never hidden, on any schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import build_schema_index
from saga_kgqa.schema.survey import survey_source
from saga_kgqa.schema.survey_model import SurveyLimits
from saga_kgqa.tools.toolbox import ToolView
from tests.support.grounding import tool_view

EX = "http://example.org/unseen/"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"

# Unit has many instances (it is the one class a one-class survey covers); Quantity has one,
# outside the survey. Both classes record a superclass, so no "unknown ancestry" rule keeps anything.
GRAPH = f"""
@prefix ex: <{EX}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Unit rdfs:subClassOf ex:Thing .
ex:Quantity rdfs:subClassOf ex:Thing .
ex:u1 a ex:Unit ; rdfs:label "metre" ; ex:symbol "m" ; ex:factor 1 .
ex:u2 a ex:Unit ; rdfs:label "second" ; ex:symbol "s" ; ex:factor 1 .
ex:u3 a ex:Unit ; rdfs:label "gram" ; ex:symbol "g" ; ex:factor 0.001 .
ex:q1 a ex:Quantity ; rdfs:label "length" ; ex:symbol "L" ; ex:factor 2 .
"""

# A declared (formal) flat schema whose label property has a domain that excludes the entity's class.
DECLARED = f"""
@prefix ex: <{EX}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:Unit a owl:Class . ex:Quantity a owl:Class .
ex:name a owl:DatatypeProperty ; rdfs:domain ex:Unit .
ex:factor a owl:DatatypeProperty ; rdfs:domain ex:Unit .
ex:u1 a ex:Unit ; ex:name "metre" ; ex:factor 1 .
ex:q1 a ex:Quantity ; ex:name "length" ; ex:factor 2 .
"""


def _store(tmp_path: Path, text: str) -> EmbeddedStore:
    path = tmp_path / "graph.ttl"
    path.write_text(text, encoding="utf-8")
    return EmbeddedStore.from_files([path])


@pytest.fixture
def surveyed(tmp_path: Path) -> Iterator[ToolView]:
    with _store(tmp_path, GRAPH) as store:
        graph = KnowledgeGraph(store)
        survey = survey_source(graph, source="unseen", limits=SurveyLimits(max_classes=1))
        assert [c.iri for c in survey.classes] == [EX + "Unit"]
        yield tool_view(graph, survey.index)


def test_an_entity_outside_the_survey_keeps_every_property_it_carries(surveyed: ToolView) -> None:
    result = surveyed.lookup(f"<{EX}q1>")
    assert result.hidden == ()
    kept = {k.info.property.iri: k.basis for k in result.kept}
    assert kept[EX + "symbol"] == "own_property"
    assert kept[RDFS_LABEL] in ("name_property", "own_property")


def test_labels_and_names_are_never_hidden_on_a_declared_schema(tmp_path: Path) -> None:
    with _store(tmp_path, DECLARED) as store:
        schema = build_schema_index(store, induce=False)
        kit = tool_view(KnowledgeGraph(store), schema)
        result = kit.lookup(f"<{EX}q1>")
    hidden = {h.info.property.iri: h.rule for h in result.hidden}
    kept = {k.info.property.iri: k.basis for k in result.kept}
    # The declared conflict on a plain property still hides it, with its rule; the name never is hidden.
    assert hidden == {EX + "factor": "closed_schema"}
    assert kept[EX + "name"] == "name_property"

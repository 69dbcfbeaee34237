"""The P2302 constraint reader against a real SPARQL server holding a Wikidata-shaped fixture."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.remote.endpoint import RemoteEndpoint
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.schema.wikidata_constraints import P2302_ORIGIN, build_wikidata_constraint_index
from tests.support.oxigraph_server import OxigraphServer, serving_in_test

FIXTURE = Path(__file__).resolve().parents[2] / "data" / "wikidata" / "constraints.ttl"
WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
WIKIBASE = "http://wikiba.se/ontology#"


@pytest.fixture(scope="module")
def wikidata_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OxigraphServer]:
    with serving_in_test(FIXTURE, tmp_path_factory) as server:
        yield server


@pytest.fixture(scope="module")
def index(wikidata_server: OxigraphServer) -> SchemaIndex:
    # A page of 3 properties forces several pages over the 7 fixture properties.
    backend = RemoteEndpoint(wikidata_server.url, profile=get_profile("wikidata"))
    return build_wikidata_constraint_index(backend, page_size=3)


def test_every_property_is_read_across_pages_and_items_are_not(index: SchemaIndex) -> None:
    assert sorted(index.properties) == sorted(WDT + p for p in ["P57", "P50", "P2670", "P1082", "P54", "P2283", "P6"])
    assert not any("stopped" in note for note in index.notes), index.notes


def test_union_subject_type_with_labels_descriptions_and_datatype(index: SchemaIndex) -> None:
    director = index.properties[WDT + "P57"]
    assert director.domain == {WD + "Q11424", WD + "Q21191270"}
    assert director.range == {WD + "Q5"}
    assert (director.domain_source, director.domain_origins) == ("formal", (P2302_ORIGIN,))
    assert (director.domain_relation, director.range_relation) == ("instance", "instance")
    assert director.label == "director"
    assert director.description is not None and director.description.startswith("director(s) of film")
    assert director.datatype == WIKIBASE + "WikibaseItem"


def test_subject_type_decides_compatibility(index: SchemaIndex) -> None:
    assert index.compatibility([WD + "Q11424"], WDT + "P57").decision == "keep"
    assert index.compatibility([WD + "Q21191270"], WDT + "P57").decision == "keep"
    assert index.compatibility([WD + "Q5"], WDT + "P57").decision == "drop"
    assert index.range_compatibility([WD + "Q43229"], WDT + "P50").decision == "keep"


def test_deprecated_and_other_constraints_are_ignored(index: SchemaIndex) -> None:
    author = index.properties[WDT + "P50"]
    assert author.domain == frozenset() and author.domain_source == "none"
    assert author.range == {WD + "Q5", WD + "Q43229"}


def test_instance_or_subclass_relation(index: SchemaIndex) -> None:
    parts = index.properties[WDT + "P2670"]
    assert (parts.domain_relation, parts.range_relation) == ("instance_or_subclass", "subclass")
    # An item whose P31 types miss the class may still be a subclass of it: not a conflict...
    assert index.compatibility([WD + "Q5"], WDT + "P2670").decision == "unknown"
    # ...until its superclasses are known.
    assert index.compatibility([WD + "Q5"], WDT + "P2670", superclasses=[]).decision == "drop"
    assert index.compatibility([], WDT + "P2670", superclasses=[WD + "Q35120"]).decision == "keep"
    # A value-type "subclass of" is checked against the value's superclasses only.
    assert index.range_compatibility([WD + "Q35120"], WDT + "P2670").decision == "unknown"
    assert index.range_compatibility([], WDT + "P2670", superclasses=[WD + "Q5"]).decision == "drop"


def test_mixed_relations_unite_classes_and_relax_the_relation(index: SchemaIndex) -> None:
    team = index.properties[WDT + "P54"]
    assert team.domain == {WD + "Q5", WD + "Q4330518"}
    assert team.domain_relation == "instance_or_subclass"


def test_unreadable_class_leaves_the_side_unknown(index: SchemaIndex) -> None:
    uses = index.properties[WDT + "P2283"]
    assert uses.domain == frozenset() and uses.domain_source == "none"


def test_missing_relation_reads_as_instance_of_and_other_languages_give_no_label(index: SchemaIndex) -> None:
    head = index.properties[WDT + "P6"]
    assert head.domain == {WD + "Q486972"} and head.domain_relation == "instance"
    assert head.label is None


def test_constraint_free_property_keeps_its_datatype(index: SchemaIndex) -> None:
    population = index.properties[WDT + "P1082"]
    assert population.datatype == WIKIBASE + "Quantity"
    assert (population.domain_source, population.range_source) == ("none", "none")
    assert index.compatibility([WD + "Q5"], WDT + "P1082").decision == "unknown"


def test_max_properties_bound_is_noted(wikidata_server: OxigraphServer) -> None:
    backend = RemoteEndpoint(wikidata_server.url, profile=get_profile("wikidata"))
    bounded = build_wikidata_constraint_index(backend, page_size=2, max_properties=4)
    assert len(bounded.properties) == 4
    assert any("stopped after 4 properties" in note for note in bounded.notes)


def test_constraint_classes_carry_labels_and_direct_superclasses(index: SchemaIndex) -> None:
    film = index.classes[WD + "Q11424"]
    assert film.label == "film" and film.parents == {WD + "Q4502142"}
    # A value known only as a visual artwork may be a film: broader, so not a conflict.
    assert index.compatibility([WD + "Q4502142"], WDT + "P57").decision == "keep"
    assert index.classes[WD + "Q21191270"].label is None

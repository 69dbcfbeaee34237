"""The offline Wikidata index, the Freebase index and index merging, on small data written for the tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.schema import PropertySchema, SchemaIndex, SchemaVocabulary
from saga_kgqa.schema.dialects import build_dialect_index
from saga_kgqa.schema.freebase import build_freebase_index
from saga_kgqa.schema.merge import fill_missing
from saga_kgqa.schema.model import ClassInfo
from saga_kgqa.schema.wikidata_metadata import WIKIBASE
from saga_kgqa.schema.wikidata_offline import build_wikidata_offline_index
from tests.support.dialect_data import write_freebase_sources, write_wikidata_sources

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
NS = "http://rdf.freebase.com/ns/"
XSD = "http://www.w3.org/2001/XMLSchema#"
CODEX = "codex:codex-m/train"


@pytest.fixture(scope="module")
def wikidata_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_wikidata_sources(tmp_path_factory.mktemp("wikidata"))


@pytest.fixture(scope="module")
def wikidata(wikidata_dir: Path) -> SchemaIndex:
    return build_wikidata_offline_index(wikidata_dir)


@pytest.fixture(scope="module")
def freebase(tmp_path_factory: pytest.TempPathFactory) -> SchemaIndex:
    return build_freebase_index(write_freebase_sources(tmp_path_factory.mktemp("freebase")) / "grailqa_ontology")


def test_curated_domains_unite_sources_and_name_them(wikidata_dir: Path) -> None:
    strict = build_wikidata_offline_index(wikidata_dir, widen_curated=False)
    director = strict.properties[WDT + "P57"]
    assert director.domain == {WD + "Q11424"}
    assert (director.domain_source, director.domain_origins) == (
        "curated",
        ("yago45_schema", "text2kgbench_wikidata_ontologies"),
    )
    assert director.label == "director" and director.datatype == WIKIBASE + "WikibaseItem"
    # Film subjects are fine, humans are not: P57 director has subject type film.
    assert strict.compatibility([WD + "Q11424"], WDT + "P57").decision == "keep"
    assert strict.compatibility([WD + "Q5"], WDT + "P57").decision == "drop"
    # Without a P279 hierarchy the strict index cannot know that a 3D film is a film.
    assert strict.compatibility([WD + "Q229390"], WDT + "P57").decision == "drop"


def test_widened_curated_domains_admit_the_types_real_subjects_carry(wikidata: SchemaIndex) -> None:
    director = wikidata.properties[WDT + "P57"]
    assert director.domain == {WD + "Q11424", WD + "Q229390"}
    assert director.domain_origins[-1] == CODEX and director.domain_source == "curated"
    assert wikidata.compatibility([WD + "Q229390"], WDT + "P57").decision == "keep"
    assert wikidata.compatibility([WD + "Q5"], WDT + "P57").decision == "drop"
    assert any("widened" in note for note in wikidata.notes)


def test_properties_without_curated_schema_are_induced_from_codex(wikidata: SchemaIndex) -> None:
    citizenship = wikidata.properties[WDT + "P27"]
    assert (citizenship.domain, citizenship.domain_source, citizenship.domain_origins) == (
        {WD + "Q5"},
        "induced",
        (CODEX,),
    )
    assert citizenship.domain_evidence is not None and citizenship.domain_evidence.sampled == 5
    # Two typed objects are below the minimum sample: the range stays unknown.
    assert citizenship.range == frozenset() and citizenship.range_source == "none"


def test_class_ranges_only_for_item_valued_properties(wikidata: SchemaIndex) -> None:
    population = wikidata.properties[WDT + "P1082"]
    assert population.domain == {WD + "Q515"}  # text2kgbench's domain is kept
    assert population.range == frozenset()  # its class range on a quantity is not
    assert population.datatype == WIKIBASE + "Quantity"


def test_offline_index_keeps_inverses_class_labels_and_constraint_notes(wikidata: SchemaIndex) -> None:
    assert wikidata.properties[WDT + "P355"].inverse == WDT + "P749"
    assert wikidata.classes[WD + "Q5"].label == "human"
    assert wikidata.classes[WD + "Q11424"].parents == {WD + "Q17537576"}
    assert wikidata.type_predicates == SchemaVocabulary.wikidata().type_predicates
    assert any(note.startswith("1 properties carry a subject type constraint") for note in wikidata.notes)


def test_offline_index_round_trips_through_json(wikidata: SchemaIndex, tmp_path: Path) -> None:
    wikidata.save(tmp_path / "wikidata.json")
    assert SchemaIndex.load(tmp_path / "wikidata.json") == wikidata


def test_freebase_roles_give_formal_domains_and_ranges(freebase: SchemaIndex) -> None:
    directed_by = freebase.properties[NS + "film.film.directed_by"]
    assert directed_by.domain == {NS + "film.film"} and directed_by.range == {NS + "film.director"}
    assert (directed_by.domain_source, directed_by.domain_origins) == ("formal", ("fb_roles",))
    assert directed_by.label == "directed by"
    assert freebase.compatibility([NS + "film.film", NS + "common.topic"], NS + "film.film.directed_by").keeps
    assert freebase.compatibility([NS + "people.person"], NS + "film.film.directed_by").decision == "drop"


def test_freebase_hierarchy_from_fb_types(freebase: SchemaIndex) -> None:
    assert freebase.hierarchy.is_subclass(NS + "film.director", NS + "common.topic")
    assert freebase.classes[NS + "film.director"].parents == {NS + "people.person"}
    assert freebase.classes[NS + "film.film"].parents == {NS + "common.topic"}  # the trailing " ." is dropped


def test_freebase_literal_value_types_become_xsd_ranges(freebase: SchemaIndex) -> None:
    release = freebase.properties[NS + "film.film.initial_release_date"]
    assert XSD + "gYear" in release.range and release.datatype == NS + "type.datetime"
    assert freebase.range_compatibility([XSD + "gYear"], NS + "film.film.initial_release_date").keeps
    assert freebase.range_compatibility([XSD + "integer"], NS + "film.film.runtime").keeps  # numeric
    assert not freebase.range_compatibility([XSD + "boolean"], NS + "film.film.runtime").keeps
    assert freebase.properties[NS + "film.film.official_website"].range == frozenset()
    assert freebase.properties[NS + "common.topic.notable_for"].range == frozenset()  # type.object


def test_freebase_reverse_properties_are_inverses_both_ways(freebase: SchemaIndex) -> None:
    assert freebase.properties[NS + "film.film.directed_by"].inverse == NS + "film.director.film"
    assert freebase.properties[NS + "film.director.film"].inverse == NS + "film.film.directed_by"
    actor = freebase.properties[NS + "film.actor.film"]  # known only from reverse_properties
    assert actor.inverse == NS + "film.performance.actor" and actor.domain_source == "none"


def test_freebase_malformed_lines_are_noted_not_guessed(freebase: SchemaIndex) -> None:
    assert any(note.startswith("fb_roles:8: skipped") for note in freebase.notes)
    assert NS + "five" not in freebase.properties


def test_freebase_vocabulary() -> None:
    vocabulary = SchemaVocabulary.freebase()
    assert vocabulary.type_predicates == (NS + "type.object.type",)
    assert vocabulary.label_predicates == (NS + "type.object.name",)


def test_dialect_builder_checks_its_arguments(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="unknown dialect"):
        build_dialect_index("dbpedia", data_dir=tmp_path)
    with pytest.raises(ConfigurationError, match="does not exist"):
        build_dialect_index("freebase", data_dir=tmp_path / "absent")
    with pytest.raises(ConfigurationError, match="Freebase ontology file not found"):
        build_dialect_index("freebase", data_dir=tmp_path)


def _index(*entries: PropertySchema, classes: dict[str, ClassInfo] | None = None) -> SchemaIndex:
    return SchemaIndex(properties={e.iri: e for e in entries}, classes=classes or {}, notes=(entries[0].iri,))


def test_fill_missing_takes_only_the_open_sides() -> None:
    formal = PropertySchema(
        iri=WDT + "P57", domain=frozenset({WD + "Q11424"}), domain_source="formal", domain_origins=("wikidata:P2302",)
    )
    induced = PropertySchema(
        iri=WDT + "P57",
        label="director",
        domain=frozenset({WD + "Q5"}),
        range=frozenset({WD + "Q5"}),
        domain_source="induced",
        range_source="induced",
        range_origins=(CODEX,),
    )
    extra = PropertySchema(iri=WDT + "P27", domain=frozenset({WD + "Q5"}), domain_source="induced")
    merged = fill_missing(
        _index(formal, classes={WD + "Q5": ClassInfo(iri=WD + "Q5", parents=frozenset({WD + "Q1"}))}),
        _index(induced, extra, classes={WD + "Q5": ClassInfo(iri=WD + "Q5", label="human")}),
    )
    director = merged.properties[WDT + "P57"]
    assert (director.domain, director.domain_source) == ({WD + "Q11424"}, "formal")
    assert (director.range, director.range_source, director.range_origins) == ({WD + "Q5"}, "induced", (CODEX,))
    assert director.label == "director"
    assert merged.properties[WDT + "P27"] == extra
    assert merged.classes[WD + "Q5"] == ClassInfo(iri=WD + "Q5", label="human", parents=frozenset({WD + "Q1"}))
    assert merged.notes == (WDT + "P57", WDT + "P57")

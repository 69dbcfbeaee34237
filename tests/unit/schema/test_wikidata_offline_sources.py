"""Parsers of the offline Wikidata sources, on small files written for the tests."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.schema.wikidata_metadata import (
    WIKIBASE,
    kgtk_text,
    read_property_metadata,
    wikibase_datatype,
)
from saga_kgqa.schema.wikidata_sources import count_side_types, read_entity_types, read_text2kgbench, read_triples
from saga_kgqa.schema.yago_shapes import fix_prefixes, read_yago_schema
from tests.support.dialect_data import YAGO_MINI, write_wikidata_sources

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_wikidata_sources(tmp_path_factory.mktemp("wikidata"))


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("'director'@en", "director"),
        ("'engine\\'s cylinders'@en", "engine's cylinders"),
        ("'say \\\"hi\\\"'@en", 'say "hi"'),
        ("'two\\nlines'", "two\nlines"),
    ],
)
def test_kgtk_text_unescapes(raw: str, text: str) -> None:
    assert kgtk_text(raw) == text


def test_kgtk_text_rejects_unquoted_values() -> None:
    with pytest.raises(ValueError, match="not a KGTK string"):
        kgtk_text("director")


@pytest.mark.parametrize(
    ("name", "local"),
    [
        ("wikibase-item", "WikibaseItem"),
        ("external-id", "ExternalId"),
        ("commonsMedia", "CommonsMedia"),
        ("monolingualtext", "Monolingualtext"),
        ("globe-coordinate", "GlobeCoordinate"),
    ],
)
def test_wikibase_datatype_names_become_property_type_iris(name: str, local: str) -> None:
    assert wikibase_datatype(name) == WIKIBASE + local


def test_property_metadata_reads_labels_descriptions_datatypes_constraints_and_inverses(sources: Path) -> None:
    metadata = read_property_metadata(sources / "wikidata_properties_isi")
    director = metadata[WDT + "P57"]
    assert director.label == "director"
    assert director.datatype == WIKIBASE + "WikibaseItem"
    assert director.constraint_types == {"Q21503250", "Q21510865"}
    # A CSV-quoted KGTK value with escaped quotes inside.
    assert metadata[WDT + "P50"].description == (
        'main creator(s) of a written work (use on works, not humans); use "author" for people'
    )
    assert metadata[WDT + "P1082"].datatype == WIKIBASE + "Quantity"
    assert metadata[WDT + "P355"].inverse == WDT + "P749"
    assert metadata[WDT + "P749"].inverse is None


def test_property_metadata_missing_directory_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="not found"):
        read_property_metadata(tmp_path)


def test_fix_prefixes_adds_the_missing_hash_only_where_needed() -> None:
    fixed = fix_prefixes(
        "@prefix sh: <http://www.w3.org/ns/shacl> .\n@prefix wd: <http://www.wikidata.org/entity/> .\n"
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
    )
    assert "<http://www.w3.org/ns/shacl#>" in fixed
    assert "<http://www.wikidata.org/entity/>" in fixed
    assert "<http://www.w3.org/2002/07/owl#>" in fixed


def test_yago_domain_is_the_node_shape_with_its_sub_shapes() -> None:
    schema = read_yago_schema(YAGO_MINI)
    # P50 sits on CreativeWork, whose sub-shape Movie draws in films.
    assert schema.domains[WDT + "P50"] == {WD + "Q17537576", WD + "Q11424"}
    assert schema.domains[WDT + "P57"] == {WD + "Q11424"}


def test_yago_ranges_read_sh_class_and_sh_or_but_not_datatypes() -> None:
    schema = read_yago_schema(YAGO_MINI)
    assert schema.ranges[WDT + "P57"] == {WD + "Q5"}
    assert schema.ranges[WDT + "P50"] == {WD + "Q5", WD + "Q43229"}
    assert WDT + "P571" not in schema.ranges  # sh:datatype only
    assert WDT + "P2047" not in schema.ranges  # a class or a datatype: not a class range


def test_yago_root_shape_gives_no_domain_and_unmapped_shapes_are_noted() -> None:
    schema = read_yago_schema(YAGO_MINI)
    assert WDT + "P18" not in schema.domains  # schema:Thing admits everything
    assert WDT + "P625" not in schema.domains and WDT + "P131" not in schema.ranges
    assert any("Place" in note and "P131" in note for note in schema.notes)
    assert not any(key.startswith("http://www.w3.org/2004/02/skos") for key in schema.domains)


def test_yago_sub_shapes_give_the_class_hierarchy() -> None:
    schema = read_yago_schema(YAGO_MINI)
    assert schema.parents[WD + "Q11424"] == {WD + "Q17537576"}
    assert WD + "Q5" not in schema.parents  # its parent shape (Thing) has no Wikidata class


def test_yago_unparsable_file_is_a_configuration_error(tmp_path: Path) -> None:
    bad = tmp_path / "yago-schema.ttl"
    bad.write_text("@prefix sh: <http://www.w3.org/ns/shacl> .\nsh:a sh:b", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="cannot parse"):
        read_yago_schema(bad)


def test_text2kgbench_reads_qid_domains_and_ranges(sources: Path) -> None:
    schema = read_text2kgbench(sources / "text2kgbench_wikidata_ontologies")
    assert schema.domains[WDT + "P57"] == {WD + "Q11424"}
    assert schema.ranges[WDT + "P57"] == {WD + "Q5"}
    assert WDT + "P577" in schema.domains and WDT + "P577" not in schema.ranges  # empty range
    assert schema.labels[WD + "Q11424"] == "film"


def test_text2kgbench_without_files_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="no text2kgbench"):
        read_text2kgbench(tmp_path)


def test_codex_side_types_count_distinct_values(sources: Path) -> None:
    types = read_entity_types(sources / "codex" / "entity2types.json.gz")
    evidence = count_side_types(read_triples([sources / "codex/triples/codex-m/train.txt.gz"]), types)
    subjects = evidence[WDT + "P27"]["subject"]
    assert (subjects.sampled, subjects.untyped) == (5, 1)  # Q99 has no types
    assert [(c.type_iri, c.count) for c in subjects.counts] == [(WD + "Q5", 4)]
    objects = evidence[WDT + "P27"]["object"]
    assert objects.sampled == 2
    assert {c.type_iri: c.count for c in objects.counts} == {WD + "Q3624078": 2, WD + "Q6256": 1}


def test_codex_malformed_triple_is_a_configuration_error(tmp_path: Path) -> None:
    path = tmp_path / "train.txt.gz"
    with gzip.open(path, "wt") as handle:
        handle.write("Q1\tP27\n")
    with pytest.raises(ConfigurationError, match="not a 'Qid Pid Qid' triple"):
        list(read_triples([path]))

"""The Wikidata and Freebase schema indexes on the real files of the shared data directory.

Lower bounds are measured values rounded down (2026-11 data snapshot), so a parser that
silently drops a source fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from saga_kgqa.schema import SchemaIndex
from saga_kgqa.schema.freebase import build_freebase_index
from saga_kgqa.schema.wikidata_metadata import WIKIBASE, read_property_metadata
from saga_kgqa.schema.wikidata_offline import build_wikidata_offline_index
from saga_kgqa.schema.wikidata_sources import read_entity_types, read_triples
from saga_kgqa.schema.yago_shapes import read_yago_schema

pytestmark = pytest.mark.shared_data

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
NS = "http://rdf.freebase.com/ns/"


@pytest.fixture(scope="module")
def wikidata(data_dir: Path) -> SchemaIndex:
    return build_wikidata_offline_index(data_dir)


@pytest.fixture(scope="module")
def freebase(data_dir: Path) -> SchemaIndex:
    return build_freebase_index(data_dir / "grailqa_ontology")


def _origins(index: SchemaIndex, side: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for entry in index.properties.values():
        if getattr(entry, side):
            for origin in getattr(entry, side + "_origins"):
                counts[origin] = counts.get(origin, 0) + 1
    return counts


def test_property_metadata_covers_every_isi_property(data_dir: Path) -> None:
    metadata = read_property_metadata(data_dir / "wikidata_properties_isi")
    assert len(metadata) >= 7800  # measured 7,810
    assert sum(1 for m in metadata.values() if m.label) >= 7800
    assert sum(1 for m in metadata.values() if m.description) >= 7700  # measured 7,727
    assert metadata[WDT + "P57"].datatype == WIKIBASE + "WikibaseItem"
    assert sum(1 for m in metadata.values() if "Q21503250" in m.constraint_types) >= 4300  # measured 4,348
    assert sum(1 for m in metadata.values() if m.inverse) >= 140  # 152 P1696 claims


def test_yago_schema_maps_its_properties_to_wikidata(data_dir: Path) -> None:
    schema = read_yago_schema(data_dir / "yago45_schema" / "yago-schema.ttl")
    assert len(schema.domains) >= 130  # measured 134 (schema:Thing's properties get none)
    assert len(schema.ranges) >= 85  # measured 87
    assert {WD + "Q11424"} <= schema.domains[WDT + "P57"]
    assert schema.ranges[WDT + "P27"] == {WD + "Q6256"}


def test_wikidata_coverage_by_source(wikidata: SchemaIndex) -> None:
    assert len(wikidata.properties) >= 7800
    with_domain = sum(1 for p in wikidata.properties.values() if p.domain)
    with_range = sum(1 for p in wikidata.properties.values() if p.range)
    assert with_domain >= 200 and with_range >= 130  # measured 202 and 145
    domains = _origins(wikidata, "domain")
    assert domains["yago45_schema"] >= 130 and domains["text2kgbench_wikidata_ontologies"] >= 85
    assert domains["codex:codex-m/train"] >= 25  # measured 29: induced alone, or widening a curated one


def test_wikidata_director_has_subject_type_film(wikidata: SchemaIndex) -> None:
    assert wikidata.compatibility([WD + "Q11424"], WDT + "P57").decision == "keep"
    assert wikidata.compatibility([WD + "Q5"], WDT + "P57").decision == "drop"


def test_wikidata_index_keeps_most_held_out_codex_subjects(data_dir: Path, wikidata: SchemaIndex) -> None:
    # Retention of CoDEx-M's test triples (never seen by the induction): measured 98.9%.
    types = read_entity_types(data_dir / "codex" / "entity2types.json.gz")
    checked = dropped = 0
    for subject, pid, _ in read_triples([data_dir / "codex" / "triples" / "codex-m" / "test.txt.gz"]):
        if subject in types:
            checked += 1
            dropped += not wikidata.compatibility(types[subject], WDT + pid).keeps
    assert checked >= 10_000
    assert dropped / checked <= 0.02


def test_freebase_coverage_from_fb_roles(freebase: SchemaIndex) -> None:
    assert len(freebase.properties) >= 20_000  # measured 20,625 (with reverse-only properties)
    assert sum(1 for p in freebase.properties.values() if p.domain_source == "formal") >= 19_000  # 19,268
    assert sum(1 for p in freebase.properties.values() if p.range_source == "formal") >= 18_500  # 18,938
    assert sum(1 for p in freebase.properties.values() if p.inverse) >= 9_800  # 9,908
    assert sum(1 for c in freebase.classes.values() if c.parents) >= 9_500  # 9,684
    assert len(freebase.notes) <= 10  # four glued lines in the real files


def test_freebase_director_domain(freebase: SchemaIndex) -> None:
    assert freebase.compatibility([NS + "film.film"], NS + "film.film.directed_by").decision == "keep"
    assert freebase.compatibility([NS + "location.location"], NS + "film.film.directed_by").decision == "drop"
    assert freebase.properties[NS + "film.film.directed_by"].inverse == NS + "film.director.film"

"""Names held by synonym properties are found, ranked after labels, and say which property matched (issue 42, 2)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.app.sources import open_source_toolbox
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.sources.resolution import resolve_entity
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.tools.search.name_detection import says_name
from tests.conftest import TEST_DATA

GENES = TEST_DATA / "ontology" / "genes.ttl"
PHENOTYPES = TEST_DATA / "ontology" / "phenotypes.ttl"
G = "http://example.org/genes/"
PH = "http://example.org/ph/"


def _sources(path: Path, tmp_path: Path) -> SourceSet:
    return SourceSet(
        Catalog(sources={"g": SourceRecord(name="g", data=(path,))}, default_source="g"),
        survey_dir=tmp_path,
        toolboxes=open_source_toolbox,
    )


@pytest.fixture()
def genes(tmp_path: Path) -> Iterator[SourceSet]:
    with _sources(GENES, tmp_path / "cache") as sources:
        yield sources


@pytest.mark.parametrize(
    ("synonym", "term", "via"),
    [
        ("Cellular tumor antigen", "g4", "hasExactSynonym"),
        ("Phosphoprotein p53", "g4", "altLabel"),
        ("RING finger protein 53", "g5", "hasRelatedSynonym"),
        ("Proinsulin", "g6", "hasNarrowSynonym"),
        ("Globin", "g7", "hasBroadSynonym"),
    ],
)
def test_resolve_finds_a_term_by_a_synonym_no_class_holds(genes: SourceSet, synonym: str, term: str, via: str) -> None:
    # Before issue 42: "no match" (names were read from surveyed properties only; this graph has no class).
    candidates = resolve_entity(genes, "g", synonym, limit=5).candidates
    assert candidates, f"no match for {synonym!r}"
    assert candidates[0].iri == G + term
    assert candidates[0].via.endswith(via)


def test_labels_rank_before_synonyms_and_synonyms_before_fuzzy_names(genes: SourceSet) -> None:
    found = [c.iri for c in resolve_entity(genes, "g", "Renal calculus", limit=5).candidates]
    # g3's label, then g1's exact synonym, then g2's label that only starts the same way.
    assert found[:3] == [G + "g3", G + "g1", G + "g2"]


def test_search_says_which_property_held_the_synonym(genes: SourceSet) -> None:
    hits = genes.get("g").toolbox().default_view().search("Cellular tumor antigen").hits
    assert hits[0].resource.iri == G + "g4"
    assert hits[0].via is not None and hits[0].via.endswith("hasExactSynonym")


def test_identifiers_stay_their_own_kind(genes: SourceSet) -> None:
    kit = genes.get("g").toolbox().default_view()
    _ = kit.context.label_index
    detected = kit.context.detected_names
    assert G + "accession" in detected.identifiers
    assert G + "accession" not in detected.names


def test_an_ontology_term_is_found_by_its_exact_synonym(tmp_path: Path) -> None:
    with _sources(PHENOTYPES, tmp_path / "cache") as sources:
        candidates = resolve_entity(sources, "g", "Renal anomaly", limit=5).candidates
    assert candidates[0].iri == PH + "T1"
    assert candidates[0].via.endswith("hasExactSynonym")


def test_synonym_properties_say_name() -> None:
    assert says_name("http://www.geneontology.org/formats/oboInOwl#hasExactSynonym")
    assert says_name("http://schema.org/alternateName")
    assert not says_name("http://purl.obolibrary.org/obo/IAO_0000115")

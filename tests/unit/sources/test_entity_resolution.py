"""Entity resolution over the persistent full-text index: labels, identifiers, IRIs only, reuse."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.sources.resolution import name_index, render_resolution, resolve_entity
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.tools.search.fulltext import FullTextIndex
from saga_kgqa.tools.search.identifier_forms import identifier_forms, is_identifier_property
from saga_kgqa.tools.search.label_index import NameEntry
from tests.conftest import TEST_DATA

LAB = TEST_DATA / "autoschema" / "lab.trig"
L = "http://example.org/lab/"


@pytest.fixture()
def sources(tmp_path: Path) -> Iterator[SourceSet]:
    catalog = Catalog(sources={"lab": SourceRecord(name="lab", data=(LAB,))}, default_source="lab")
    with SourceSet(catalog, survey_dir=tmp_path / "cache") as opened:
        yield opened


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("GO:0008150", {"go0008150", "0008150"}),
        ("go_0008150", {"go0008150", "0008150"}),
        ("UniProt:P12345", {"uniprotp12345", "p12345", "12345"}),
        ("ISBN 978-3-16-148410-0", {"isbn9783161484100", "9783161484100"}),
    ],
)
def test_identifier_forms_meet(text: str, expected: set[str]) -> None:
    assert set(identifier_forms(text)) == expected


def test_identifier_properties_by_name() -> None:
    assert is_identifier_property("http://example.org/lab/accession")
    assert is_identifier_property("http://ld.company.org/prod-vocab/id")
    assert is_identifier_property("http://example.org/productId")
    assert not is_identifier_property("http://example.org/lab/name")
    assert not is_identifier_property("http://example.org/lab/paid")


@pytest.mark.parametrize(
    ("text", "iri"),
    [
        ("Alice Adler", "alice"),
        ("alic", "alice"),
        ("Alcie Adler", "alice"),  # one edit per word
        ("p12345", "p1"),
        ("UniProt:P12345", "p1"),
        ("0000-0001-2345-6789", "alice"),
        ("kinase b", "p2"),
        ("kinases", "p1"),  # stemmed: the plural finds the singular
        ("Alcie Adlerr", "alice"),
    ],
)
def test_resolution_finds_the_entity_first(sources: SourceSet, text: str, iri: str) -> None:
    result = resolve_entity(sources, "lab", text, limit=5)
    assert result.candidates, render_resolution(result)
    assert result.candidates[0].iri == L + iri
    assert all(not c.iri.startswith("_:") for c in result.candidates)


def test_candidates_carry_class_and_label(sources: SourceSet) -> None:
    first = resolve_entity(sources, "lab", "Gene Centre").candidates[0]
    assert (first.iri, first.label, first.classes, first.matched_by) == (
        L + "inst2",
        "Gene Centre",
        ("lab:Institute",),
        "exact",
    )
    text = render_resolution(resolve_entity(sources, "lab", "Gene Centre"))
    assert 'lab:inst2  "Gene Centre"  [lab:Institute]' in text


def test_the_index_is_persisted_and_reopened(sources: SourceSet, tmp_path: Path) -> None:
    opened = sources.get("lab")
    built = name_index(opened)
    path = opened.fulltext_path()
    assert path.is_dir() and len(built) > 0
    again = FullTextIndex.open(path)
    assert len(again) == len(built)
    assert again.meta["endpoint_id"] == opened.graph.endpoint_id


def test_blank_nodes_are_never_indexed(tmp_path: Path) -> None:
    index = FullTextIndex.build(
        tmp_path / "ft",
        [NameEntry("_:b0", "Basel", "http://x/name"), NameEntry("http://x/basel", "Basel", "http://x/name")],
    )
    assert [m.resource for m in index.search("basel", limit=5)] == ["http://x/basel"]


def test_a_source_resolves_names_kept_under_the_graphs_own_property_names(tmp_path: Path) -> None:
    # Issue 22, point 1: Spider4SPARQL's shape, no rdfs:label; names in song_name, values in nationality.
    data = tmp_path / "songs.ttl"
    data.write_text(
        "@prefix : <http://valuenet/ontop/> .\n"
        + "".join(
            f':s{i} a :song ; :song_name "{name}" ; :nationality "{country}" ; :song_id "{i}" .\n'
            for i, (name, country) in enumerate([("Dance", "France"), ("Love", "Peru"), ("Rain", "France")])
        ),
        encoding="utf-8",
    )
    catalog = Catalog(sources={"songs": SourceRecord(name="songs", data=(data,))}, default_source="songs")
    with SourceSet(catalog, survey_dir=tmp_path / "cache") as opened:
        by_name = resolve_entity(opened, "songs", "Dance")
        by_value = resolve_entity(opened, "songs", "France")
    assert by_name.candidates[0].iri == "http://valuenet/ontop/s0"
    assert by_name.candidates[0].via.endswith("song_name>") or by_name.candidates[0].via.endswith(":song_name")
    assert {c.iri for c in by_value.candidates[:2]} == {"http://valuenet/ontop/s0", "http://valuenet/ontop/s2"}

"""The join tool binds step 1's keys into step 2 in the right side's form; no key is copied by hand (point 3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from saga_kgqa.app.sources import open_source_toolbox
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.errors import ToolInputError
from saga_kgqa.sources.federation import join_sources, parse_join
from saga_kgqa.sources.grounding import execute_on_source
from saga_kgqa.sources.session import SourceSet
from tests.unit.multisource.conftest import L, R

STEP1 = f"concerts: SELECT ?c ?key WHERE {{ ?c a <{L}Concert> ; <{L}stadium_id> ?key ; <{L}year> 2014 }}"
STEP2 = f"venues: SELECT ?key ?name WHERE {{ ?s <{R}stadiumId> ?key ; <{R}stadiumName> ?name }}"


@pytest.mark.parametrize("form", ["integer", "string", "padded", "double"])
def test_join_answers_like_the_whole_graph(concert_sources: Callable[[str], SourceSet], form: str) -> None:
    sources = concert_sources(form)
    joined = join_sources(sources, f"{STEP1} ==> {STEP2}")
    assert joined.status == "ok", joined.text
    assert joined.result is not None
    assert sorted((r["c"].value[-1], r["name"].value) for r in joined.result.rows) == [
        ("1", "Hampden"),
        ("2", "Balmoor"),
        ("5", "Hampden"),
    ]
    # The bound step 2 is a real query on the right source: re-running it gives the answer's column.
    again = execute_on_source(sources, "venues", joined.bound_query)
    assert again.result is not None
    assert {r["name"].value for r in again.result.rows} == {"Hampden", "Balmoor"}
    assert joined.normalisation == {"integer": "exact", "string": "datatype", "padded": "zero-padding"}.get(
        form, "datatype"
    )


def test_a_double_key_copied_from_the_table_into_values_finds_its_rows(
    concert_sources: Callable[[str], SourceSet],
) -> None:
    sources = concert_sources("double")
    shown = execute_on_source(sources, "venues", f"SELECT ?key WHERE {{ ?s <{R}stadiumId> ?key }} ORDER BY ?key")
    cell = shown.text.splitlines()[3].strip("| ").strip()
    pasted = execute_on_source(
        sources, "venues", f"SELECT ?s WHERE {{ VALUES ?key {{ {cell} }} ?s <{R}stadiumId> ?key }}"
    )
    assert pasted.status == "ok", (cell, pasted.text)


def test_a_join_that_cannot_meet_names_both_datatypes(concert_sources: Callable[[str], SourceSet]) -> None:
    sources = concert_sources("integer")
    step2 = f"venues: SELECT ?key WHERE {{ ?s <{R}stadiumName> ?key }}"
    joined = join_sources(sources, f"{STEP1} ==> {step2}")
    assert joined.status == "empty"
    assert "datatype mismatch" in joined.text and "xsd:integer" in joined.text and "plain string" in joined.text


def test_malformed_requests_are_typed_errors(concert_sources: Callable[[str], SourceSet]) -> None:
    with pytest.raises(ToolInputError):
        parse_join("SELECT * WHERE { ?s ?p ?o }")
    with pytest.raises(ToolInputError, match="same variable"):
        join_sources(concert_sources("integer"), f"{STEP1} ==> venues: SELECT ?x WHERE {{ ?x ?p ?o }}")


@pytest.mark.parametrize("form", ["string", "double"])
def test_pasted_integer_keys_find_the_rows_stored_as_strings_or_doubles(
    concert_sources: Callable[[str], SourceSet], form: str
) -> None:
    # Keys copied from the other side's table (integers) into VALUES: the stored forms are bound too (42.4).
    sources = concert_sources(form)
    query = f"SELECT ?s ?key WHERE {{ VALUES ?key {{ 1 2 }} ?s <{R}stadiumId> ?key }}"
    outcome = execute_on_source(sources, "venues", query)
    assert outcome.status == "ok", outcome.text
    assert outcome.result is not None
    assert sorted(row["s"].value[-1] for row in outcome.result.rows) == ["1", "2"]
    stored = {"string": '"1"', "double": '"1"^^xsd:double'}[form]
    assert f"1 → {stored} (datatype)" in outcome.text and "stored form" in outcome.text, outcome.text


def test_pasted_keys_that_no_form_matches_are_told_why(concert_sources: Callable[[str], SourceSet]) -> None:
    sources = concert_sources("string")
    query = f"SELECT ?s WHERE {{ VALUES ?key {{ 98 99 }} ?s <{R}stadiumId> ?key }}"
    outcome = execute_on_source(sources, "venues", query)
    assert outcome.status == "empty"
    assert "none of the 2 pasted ?key values is stored here in any form tried" in outcome.text, outcome.text
    assert 'like "' in outcome.text


def test_padded_codes_of_several_widths_are_all_bound(tmp_path: Path) -> None:
    # Fixed-width codes: the first row the probe sees ("12345") has no leading zero, the others do.
    left = "".join(f'<{L}c{n}> <{L}code> "{n}"^^<http://www.w3.org/2001/XMLSchema#integer> .\n' for n in (12345, 1, 2))
    right = "".join(f'<{R}d{n}> <{R}code> "{n:05d}" ; <{R}name> "D{n}" .\n' for n in (12345, 1, 2))
    (tmp_path / "l.ttl").write_text(left)
    (tmp_path / "r.ttl").write_text(right)
    catalog = Catalog(
        sources={
            "a": SourceRecord(name="a", data=(tmp_path / "l.ttl",)),
            "b": SourceRecord(name="b", data=(tmp_path / "r.ttl",)),
        },
        default_source="a",
    )
    with SourceSet(catalog, survey_dir=tmp_path / "cache", toolboxes=open_source_toolbox) as sources:
        joined = join_sources(
            sources,
            f"a: SELECT ?c ?key WHERE {{ ?c <{L}code> ?key }} ==> "
            f"b: SELECT ?key ?n WHERE {{ ?d <{R}code> ?key ; <{R}name> ?n }}",
        )
    assert joined.result is not None
    assert sorted(row["n"].value for row in joined.result.rows) == ["D1", "D12345", "D2"], joined.text

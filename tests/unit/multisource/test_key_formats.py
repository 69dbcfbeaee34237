"""Keys written differently on the two sides are compared under shown transformations (issue 42, points 3-5)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from saga_kgqa.app.sources import open_source_toolbox
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.sources.federation import join_sources
from saga_kgqa.sources.grounding import bridge_sources, execute_on_source
from saga_kgqa.sources.session import SourceSet
from tests.unit.multisource.conftest import XSD, L, R

# (code, name, ISO numeric code); (currency, country code, its own numeric code).
COUNTRIES = [("AF", "Afghanistan", 4), ("AL", "Albania", 8), ("DZ", "Algeria", 12), ("AD", "Andorra", 20)]
COUNTRIES += [("AO", "Angola", 24), ("AR", "Argentina", 32)]
CURRENCIES = [("AFN", "AF", 971), ("ALL", "AL", 8), ("DZD", "DZ", 12), ("EUR", "AD", 978), ("AOA", "AO", 973)]
CURRENCIES += [("ARS", "AR", 32), ("USD", "US", 840), ("XCD", "AG", 20), ("XOF", "BJ", 24)]

# How the right side writes the country code, and the step the match must name.
FORMS: dict[str, tuple[Callable[[str], str], str]] = {
    "prefix": (lambda code: f'"ISO:{code}"', "prefix"),
    "urn": (lambda code: f'"urn:iso:std:3166:{code}"', "prefix"),
    "lower": (lambda code: f'"{code.lower()}"', "case"),
    "iri": (lambda code: f"<{R}country/{code}>", "local-name"),
    "space": (lambda code: f'" {code}"', "trim"),
}
SHOWN = {"prefix": "unprefix(", "urn": "unprefix(", "lower": "lower(", "iri": "localname(", "space": "trim("}


def _int(value: int) -> str:
    return f'"{value}"^^<{XSD}integer>'


def left_ttl() -> str:
    lines = []
    for code, name, number in COUNTRIES:
        s = f"<{L}country/{code}>"
        lines += [f"{s} a <{L}Country> .", f'{s} <{L}isoCode> "{code}" .', f'{s} <{L}name> "{name}" .']
        lines.append(f"{s} <{L}numericCode> {_int(number)} .")
    return "\n".join(lines) + "\n"


def right_ttl(form: Callable[[str], str]) -> str:
    lines = []
    for currency, country, number in CURRENCIES:
        s = f"<{R}currency/{currency}>"
        lines += [f"{s} a <{R}Currency> .", f"{s} <{R}usedIn> {form(country)} .", f'{s} <{R}label> "{currency}" .']
        lines.append(f"{s} <{R}numericCode> {_int(number)} .")
    return "\n".join(lines) + "\n"


@pytest.fixture()
def money(tmp_path: Path) -> Iterator[Callable[[str], SourceSet]]:
    opened: list[SourceSet] = []

    def build(form: str) -> SourceSet:
        folder = tmp_path / form
        folder.mkdir()
        (folder / "countries.ttl").write_text(left_ttl())
        write = FORMS[form][0] if form in FORMS else (lambda code: f'"{code}"')
        (folder / "money.ttl").write_text(right_ttl(write))
        catalog = Catalog(
            sources={
                "countries": SourceRecord(name="countries", data=(folder / "countries.ttl",)),
                "money": SourceRecord(name="money", data=(folder / "money.ttl",)),
            },
            default_source="countries",
        )
        sources = SourceSet(catalog, survey_dir=folder / "cache", toolboxes=open_source_toolbox)
        opened.append(sources)
        return sources

    yield build
    for sources in opened:
        sources.close()


STEP1 = f"countries: SELECT ?c ?key WHERE {{ ?c a <{L}Country> ; <{L}isoCode> ?key }}"
STEP2 = f"money: SELECT ?key ?label WHERE {{ ?m <{R}usedIn> ?key ; <{R}label> ?label }}"
ANSWER = [("AD", "EUR"), ("AF", "AFN"), ("AL", "ALL"), ("AO", "AOA"), ("AR", "ARS"), ("DZ", "DZD")]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_bridge_finds_and_shows_the_transformation(money: Callable[[str], SourceSet], form: str) -> None:
    result = bridge_sources(money(form), "countries", "money")
    top = result.candidates[0]
    assert (top.left_property, top.right_property) == (L + "isoCode", R + "usedIn"), result.text
    assert FORMS[form][1] in top.normalisation.split("+")
    assert SHOWN[form] in top.transformation and SHOWN[form] in result.text, result.text


@pytest.mark.parametrize("form", sorted(FORMS))
def test_join_binds_the_stored_form(money: Callable[[str], SourceSet], form: str) -> None:
    joined = join_sources(money(form), f"{STEP1} ==> {STEP2}")
    assert joined.status == "ok", joined.text
    assert joined.result is not None
    assert sorted((r["c"].value[-2:], r["label"].value) for r in joined.result.rows) == ANSWER
    assert FORMS[form][0]("AF") in joined.bound_query  # the right side's stored term, exactly
    assert FORMS[form][1] in joined.normalisation.split("+") and SHOWN[form] in joined.text, joined.text


@pytest.mark.parametrize("form", sorted(FORMS))
def test_keys_pasted_from_the_other_side_find_their_rows(money: Callable[[str], SourceSet], form: str) -> None:
    query = f'SELECT ?label WHERE {{ VALUES ?key {{ "AF" "DZ" }} ?m <{R}usedIn> ?key ; <{R}label> ?label }}'
    outcome = execute_on_source(money(form), "money", query)
    assert outcome.status == "ok", outcome.text
    assert outcome.result is not None
    assert sorted(row["label"].value for row in outcome.result.rows) == ["AFN", "DZD"]
    assert f"({FORMS[form][1]}" in outcome.text or f"+{FORMS[form][1]}" in outcome.text, outcome.text


def test_tables_show_whitespace_as_stored(money: Callable[[str], SourceSet]) -> None:
    query = f"SELECT ?key WHERE {{ <{R}currency/AFN> <{R}usedIn> ?key }}"
    outcome = execute_on_source(money("space"), "money", query)
    assert '| " AF" |' in outcome.text, outcome.text


def test_a_numeric_code_coincidence_ranks_below_the_identical_string_codes(money: Callable[[str], SourceSet]) -> None:
    # numericCode = numericCode by name, sharing 8, 12, 20, 24, 32 by chance; isoCode = usedIn by every value.
    result = bridge_sources(money("exact"), "countries", "money")
    top = result.candidates[0]
    assert (top.left_property, top.right_property) == (L + "isoCode", R + "usedIn"), result.text
    assert top.normalisation == "exact"

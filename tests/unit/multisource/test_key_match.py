"""Key forms: what is split off a key, what two keys' match is called, and how a key is written in another form."""

from __future__ import annotations

import pytest

from saga_kgqa.kg.core.result import Term
from saga_kgqa.sources.key_match import expression, loss, match_key, normalisation, render, written

XSD = "http://www.w3.org/2001/XMLSchema#"


def lit(value: str, datatype: str | None = None) -> Term:
    return Term("literal", value, datatype)


@pytest.mark.parametrize(
    ("left", "right", "rule"),
    [
        (lit("XX"), lit("XX"), "exact"),
        (lit("1", XSD + "integer"), lit("1"), "datatype"),
        (lit("1", XSD + "integer"), lit("001"), "zero-padding"),
        (lit("1", XSD + "integer"), lit("1.0", XSD + "double"), "numeric"),
        (lit("XX"), lit(" XX "), "trim"),
        (lit("XX"), lit("xx"), "case"),
        (lit("XX"), lit("SCHEME:XX"), "prefix"),
        (lit("XX"), lit("urn:iso:std:3166:XX"), "prefix"),
        (lit("XX"), Term("uri", "http://example.org/code/XX"), "local-name"),
        (lit("xx"), Term("uri", "http://example.org/code#XX"), "local-name+case"),
        (lit(" 7"), lit("ID:007"), "trim+zero-padding+prefix"),
    ],
)
def test_keys_written_differently_meet_and_the_steps_are_named(left: Term, right: Term, rule: str) -> None:
    assert match_key(left) == match_key(right)
    assert normalisation(left, right) == rule


@pytest.mark.parametrize("text", ["12:30", "Note: see below", "http://example.org/a", "T10:00:00"])
def test_text_that_is_no_prefixed_code_keeps_its_colon(text: str) -> None:
    assert written(lit(text)).prefix == ""
    assert match_key(lit(text)) != match_key(lit(text.rsplit(":", 1)[-1]))


def test_different_codes_do_not_meet() -> None:
    assert match_key(lit("XX")) != match_key(lit("XY"))
    assert match_key(lit("1")) != match_key(lit("10"))


def test_lossy_steps_cost_more_than_lossless_ones() -> None:
    assert loss("exact") < loss("datatype") < loss("trim") < loss("case")
    assert loss("zero-padding") < loss("prefix") < loss("prefix+case")


@pytest.mark.parametrize(
    ("key", "stored", "written_as"),
    [
        (lit("XX"), lit("SCHEME:AB"), lit("SCHEME:XX")),
        (lit("XX"), lit("ab"), lit("xx")),
        (lit("XX"), lit(" AB"), lit(" XX")),
        (lit("5", XSD + "integer"), lit("00012"), lit("00005")),
        (lit("5", XSD + "integer"), lit("12", XSD + "double"), lit("5", XSD + "double")),
        (lit("XX"), Term("uri", "http://example.org/code/AB"), Term("uri", "http://example.org/code/XX")),
        (Term("uri", "http://a.example/XX"), lit("AB"), lit("XX")),
        (lit("XX"), lit("12", XSD + "integer"), lit("XX")),  # a code is never written as a typed number
    ],
)
def test_a_key_is_written_in_the_stored_form(key: Term, stored: Term, written_as: Term) -> None:
    assert render(key, written(stored)) == written_as


def test_the_rule_wraps_each_side_in_what_it_needs() -> None:
    assert expression("case", lit("XX"), lit("xx"), "countries.code", "money.usedIn") == (
        "lower(countries.code) = money.usedIn"
    )
    assert expression("prefix", lit("XX"), lit("ISO:XX"), "a", "b") == 'a = unprefix("ISO:", b)'
    assert expression("local-name", lit("XX"), Term("uri", "http://x.org/XX"), "a", "b") == "a = localname(b)"
    assert expression("trim", lit("XX"), lit(" XX"), "a", "b") == "a = trim(b)"
    assert expression("exact", lit("XX"), lit("XX"), "a", "b") == "a = b"

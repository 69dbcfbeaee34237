"""Literal canonicalisation: numbers, dates by precision, booleans, language tags."""

from __future__ import annotations

import pytest

from saga_kgqa.eval.qa.canonical import XSD, XSD_DATE, XSD_DATETIME, XSD_DECIMAL, canonical_term
from saga_kgqa.kg.core.result import Term


@pytest.mark.parametrize(
    ("value", "datatype", "expected"),
    [
        ("+100", "decimal", "100"),
        ("100", "integer", "100"),
        ("1.0E2", "double", "100"),
        ("0.50", "decimal", "0.5"),
        ("-7", "int", "-7"),
    ],
)
def test_numbers_share_one_form(value: str, datatype: str, expected: str) -> None:
    assert canonical_term(Term("literal", value, XSD + datatype)) == Term("literal", expected, XSD_DECIMAL)


def test_dates_keep_the_precision_they_carry() -> None:
    midnight = canonical_term(Term("literal", "1952-03-11T00:00:00Z", XSD_DATETIME))
    assert midnight == Term("literal", "1952-03-11", XSD_DATE)
    assert canonical_term(Term("literal", "1952-03-11", XSD_DATE)) == midnight
    timed = canonical_term(Term("literal", "2020-01-01T12:30:00+02:00", XSD_DATETIME))
    assert timed == Term("literal", "2020-01-01T10:30:00", XSD_DATETIME)
    # BCE years do not fit Python's datetime; the midnight rule still applies.
    assert canonical_term(Term("literal", "-0500-01-01T00:00:00Z", XSD_DATETIME)) == Term(
        "literal", "-0500-01-01", XSD_DATE
    )


def test_language_tags_booleans_and_untouched_terms() -> None:
    assert canonical_term(Term("literal", "Paris", lang="EN")) == Term("literal", "Paris")
    assert canonical_term(Term("literal", "1", XSD + "boolean")) == Term("literal", "true", XSD + "boolean")
    iri = Term("uri", "http://www.wikidata.org/entity/Q90")
    assert canonical_term(iri) is iri
    broken = Term("literal", "twelve", XSD + "integer")
    assert canonical_term(broken) == broken

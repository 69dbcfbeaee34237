"""XSD's derived integer casts for the embedded store follow XPath's casting rules (faults AE2)."""

from __future__ import annotations

import pytest

from saga_kgqa.kg.embedded.xsd_casts import XSD, cast_value, casts_for


@pytest.mark.parametrize(
    ("lexical", "datatype", "target", "expected"),
    [
        ("42", "string", "int", 42),
        (" +7 ", "string", "int", 7),  # whitespace collapsed, a sign allowed
        ("12.5", "string", "int", None),  # a string must have an integer's lexical form
        ("twelve", "string", "int", None),
        ("12.9", "decimal", "int", 12),  # truncated towards zero
        ("-12.9", "decimal", "int", -12),
        ("1e3", "double", "long", 1000),
        ("NaN", "double", "int", None),
        ("INF", "float", "int", None),
        ("true", "boolean", "byte", 1),
        ("0", "boolean", "byte", 0),
        ("127", "integer", "byte", 127),
        ("128", "integer", "byte", None),  # out of range
        ("-1", "integer", "unsignedInt", None),
        ("2147483648", "integer", "int", None),
        ("2147483648", "integer", "long", 2147483648),
        ("0", "integer", "positiveInteger", None),
        ("0", "integer", "nonNegativeInteger", 0),
        ("5", "short", "negativeInteger", None),
        ("2020-01-01", "date", "int", None),  # a date has no integer cast
    ],
)
def test_cast_value_follows_xpath(lexical: str, datatype: str, target: str, expected: int | None) -> None:
    assert cast_value(lexical, XSD + datatype, target) == expected


def test_only_queries_that_call_a_derived_cast_get_the_functions() -> None:
    assert casts_for("SELECT (xsd:int(?x) AS ?y) WHERE { ?s ?p ?x }") is not None
    assert casts_for("SELECT (<http://www.w3.org/2001/XMLSchema#unsignedByte> (?x) AS ?y) WHERE {}") is not None
    assert casts_for("SELECT (xsd:integer(?x) AS ?y) WHERE { ?s ?p ?x }") is None
    assert casts_for('SELECT ?s WHERE { ?s ?p "int" }') is None

"""Every value a tool shows is SPARQL term syntax for its datatype, and the guard takes it back (issue 23, point 3)."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.guard.query_guard import QueryGuard
from saga_kgqa.tools.render import term_text

XSD = "http://www.w3.org/2001/XMLSchema#"
PREFIXES = {"xsd": XSD, "ex": "http://example.org/"}
GUARD = QueryGuard(get_profile("embedded"))


def _pasted(shown: str) -> ox.Literal | ox.NamedNode:
    """The term a model gets when it copies the shown value into VALUES (the guard checks it first)."""
    checked = GUARD.check(f"PREFIX ex: <http://example.org/> SELECT ?k WHERE {{ VALUES ?k {{ {shown} }} }}")
    store = ox.Store()
    rows = list(store.query(checked.text))
    term = rows[0]["k"]
    assert isinstance(term, ox.Literal | ox.NamedNode)
    return term


@pytest.mark.parametrize(
    ("value", "datatype"),
    [
        ("700", XSD + "double"),
        ("7.0E2", XSD + "double"),
        ("700", XSD + "decimal"),
        ("1.50", XSD + "decimal"),
        ("700", XSD + "integer"),
        ("007", XSD + "integer"),
        ("-3", XSD + "integer"),
        ("true", XSD + "boolean"),
        ("1", XSD + "boolean"),
        ("NaN", XSD + "double"),
        ("2014", XSD + "gYear"),
        ("700", XSD + "string"),
        ("700", XSD + "int"),
        ("7", "http://example.org/oddType"),
    ],
)
def test_a_shown_literal_pastes_back_as_the_same_term(value: str, datatype: str) -> None:
    shown = term_text(Term("literal", value, datatype), PREFIXES)
    pasted = _pasted(shown)
    assert isinstance(pasted, ox.Literal)
    # The copy joins with the stored value: the point of pasting a key into VALUES.
    store = ox.Store()
    store.add(
        ox.Quad(
            ox.NamedNode("http://example.org/s"),
            ox.NamedNode("http://example.org/p"),
            ox.Literal(value, datatype=ox.NamedNode(datatype)),
        )
    )
    query = f"PREFIX ex: <http://example.org/> SELECT ?s WHERE {{ VALUES ?k {{ {shown} }} ?s ?p ?k }}"
    found = list(store.query(GUARD.check(query).text))
    assert len(found) == 1, shown


def test_a_double_is_never_shown_as_a_bare_integer() -> None:
    shown = term_text(Term("literal", "700", XSD + "double"), PREFIXES)
    assert shown != "700"
    assert "double" in shown


def test_language_strings_and_iris_paste_back() -> None:
    assert _pasted(term_text(Term("literal", 'say "hi"', None, "en"), PREFIXES)) == ox.Literal(
        'say "hi"', language="en"
    )
    assert _pasted(term_text(Term("uri", "http://example.org/x1"), PREFIXES)) == ox.NamedNode("http://example.org/x1")

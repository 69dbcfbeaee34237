"""Parsing result bodies: strict on complete bodies, salvaging on bodies cut at the byte cap."""

from __future__ import annotations

import json

import pytest

from saga_kgqa.kg.core.result import QueryResult, Term
from saga_kgqa.kg.remote import response_parse
from saga_kgqa.kg.remote.response_parse import parse_graph, parse_solutions

BINDINGS = [
    {"s": {"type": "uri", "value": "http://example.org/a"}, "n": {"type": "literal", "value": "Ä 𝄞", "xml:lang": "de"}},
    {"s": {"type": "bnode", "value": "b1"}},
    {
        "s": {"type": "uri", "value": "http://example.org/c"},
        "n": {"type": "literal", "value": "3", "datatype": "http://www.w3.org/2001/XMLSchema#integer"},
    },
    {"s": {"type": "uri", "value": "http://example.org/d,]}"}},  # separators inside a string
]
DOCUMENT = {"head": {"vars": ["s", "n"]}, "results": {"bindings": BINDINGS}}


def full_rows() -> list[dict[str, Term]]:
    return QueryResult.from_sparql_json(DOCUMENT).rows


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_every_cut_of_a_body_keeps_exactly_the_complete_rows_before_it(ensure_ascii: bool) -> None:
    body = json.dumps(DOCUMENT, ensure_ascii=ensure_ascii, indent=1).encode()
    expected = full_rows()
    second_binding_started = body.index(b'"bnode"')
    kept_counts = set()
    bindings_open = body.index(b'"bindings": [') + len(b'"bindings": [')
    for length in range(bindings_open, len(body)):
        result = parse_solutions(body[:length], "SELECT", max_rows=100, complete=False)
        assert result.truncated
        assert result.rows == expected[: len(result.rows)], f"cut at {length}"
        if length >= second_binding_started:
            assert result.rows, f"cut at {length} lost the first complete binding"
        kept_counts.add(len(result.rows))
    assert kept_counts == {0, 1, 2, 3, 4}


def test_a_complete_body_parses_strictly() -> None:
    result = parse_solutions(json.dumps(DOCUMENT).encode(), "SELECT", max_rows=100, complete=True)
    assert result.rows == full_rows()
    assert result.variables == ["s", "n"]
    assert not result.truncated and result.notes == []


def test_row_cap_on_a_complete_body_still_validates_the_rest() -> None:
    body = json.dumps(DOCUMENT).encode()
    capped = parse_solutions(body, "SELECT", max_rows=2, complete=True)
    assert capped.rows == full_rows()[:2] and capped.truncated
    broken = body.replace(b'"b1"', b'"b1"]')
    with pytest.raises(ValueError, match="JSON"):
        parse_solutions(broken, "SELECT", max_rows=2, complete=True)


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"<html></html>",
        b'{"head": {"vars": ["s"]}}',
        b'{"results": {"bindings": []}}',
        b'{"head": {"vars": ["s"]}, "results": {"bindings": []}} trailing',
        b'{"head": {"vars": ["s"]}, "results": {"bindings": [1]}}',
        b'{"head": {"vars": "s"}, "results": {"bindings": []}}',
        b'{"head": {"vars": ["s"]}, "results": {"bindings": [{"s": {"type": "uri"}}]}}',
        b'\xff{"head": {"vars": ["s"]}, "results": {"bindings": []}}',
    ],
)
def test_a_complete_body_that_is_not_a_select_result_is_rejected(body: bytes) -> None:
    with pytest.raises(ValueError):
        parse_solutions(body, "SELECT", max_rows=10, complete=True)


def test_a_prefix_cut_before_the_bindings_cannot_be_salvaged() -> None:
    with pytest.raises(ValueError, match="cut before any 'bindings'"):
        parse_solutions(b'{"head": {"vars": ["s"]}, "resu', "SELECT", max_rows=10, complete=False)


def test_a_prefix_without_head_takes_variables_from_the_rows() -> None:
    body = b'{"results": {"bindings": [{"b": {"type": "uri", "value": "x"}, "a": {"type": "uri", "value": "y"}}, {"c'
    result = parse_solutions(body, "SELECT", max_rows=10, complete=False)
    assert result.variables == ["b", "a"]


def test_ask_needs_a_boolean() -> None:
    assert parse_solutions(b'{"head": {}, "boolean": true}', "ASK", max_rows=1, complete=True).boolean is True
    with pytest.raises(ValueError, match="ASK"):
        parse_solutions(json.dumps(DOCUMENT).encode(), "ASK", max_rows=1, complete=True)
    with pytest.raises(ValueError):
        parse_solutions(b'{"boolean": "yes"}', "ASK", max_rows=1, complete=True)


NTRIPLES = (
    b'<http://e/a> <http://e/p> "x"@en .\n<http://e/a> <http://e/p> _:b .\n<http://e/a> <http://e/q> "long literal" .\n'
)


def test_graph_answers_parse_and_salvage() -> None:
    whole = parse_graph(NTRIPLES, "application/n-triples", "CONSTRUCT", max_rows=10, complete=True)
    assert [row["object"].kind for row in whole.rows] == ["literal", "bnode", "literal"]
    assert whole.rows[0]["object"] == Term("literal", "x", lang="en")
    cut = parse_graph(NTRIPLES[:-10], "application/n-triples", "CONSTRUCT", max_rows=10, complete=False)
    assert cut.rows == whole.rows[:2] and cut.truncated
    with pytest.raises(ValueError, match="not valid RDF"):
        parse_graph(NTRIPLES[:-10], "application/n-triples", "CONSTRUCT", max_rows=10, complete=True)
    with pytest.raises(ValueError, match="N-Triples or Turtle"):
        parse_graph(NTRIPLES, "application/sparql-results+json", "CONSTRUCT", max_rows=10, complete=True)


AGREEMENT_BODIES = [
    json.dumps(DOCUMENT).encode(),
    json.dumps(DOCUMENT, indent=2, ensure_ascii=False).encode(),
    b'{"head": {"vars": []}, "results": {"bindings": [{}]}}',
    b'{"head": {"vars": ["a", "b"]}, "results": {"bindings": [{"a": {"type": "literal", "value": "x"},'
    b' "b": {"type": "typed-literal", "value": "1"}}, {"a": {"value": "x", "type": "bnode"}}]}}',
    b'{"results": {"ordered": true, "bindings": []}, "head": {"vars": ["s"], "link": []}}',
    b'{"head": {}, "boolean": false}',
    b'{"head": {"vars": ["s"]}, "results": []}',
    b'{"head": {"vars": ["s"]}, "results": {"bindings": {}}}',
    b'{"head": {"vars": ["s"]}, "results": {"bindings": [{"s": 1}]}}',
    b'{"head": {"vars": ["s"]}, "results": {"bindings": [{"s": {"type": "x", "value": "v"}}]}}',
    b'{"head": 3, "results": {"bindings": []}}',
    b'{"head": {"vars": ["s"]}, "boolean": 1}',
    b"[]",
    b"null",
    b'{"head": {"vars": ["s"]}}',
    b"",
    b"<html></html>",
]


def _outcome(body: bytes, form: str, max_rows: int) -> object:
    try:
        return parse_solutions(body, form, max_rows=max_rows, complete=True)  # type: ignore[arg-type]
    except ValueError:
        return ValueError


@pytest.mark.parametrize("body", AGREEMENT_BODIES)
@pytest.mark.parametrize(("form", "max_rows"), [("SELECT", 100), ("SELECT", 1), ("ASK", 1)])
def test_the_whole_document_reading_agrees_with_the_walk(
    body: bytes, form: str, max_rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = _outcome(body, form, max_rows)
    monkeypatch.setattr(response_parse, "WHOLE_PARSE_BYTES", -1)  # every body takes the walk
    assert whole == _outcome(body, form, max_rows)

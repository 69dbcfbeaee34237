"""Lexical normalisation of SPARQL text (the record/replay cache key)."""

from __future__ import annotations

import pytest

from saga_kgqa.kg.guard.query_text import normalise_query_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  SELECT  *\n\tWHERE {  ?s ?p ?o }\n", "SELECT * WHERE { ?s ?p ?o }"),
        ("SELECT * # why\nWHERE { ?s ?p ?o } # trailing", "SELECT * WHERE { ?s ?p ?o }"),
        ("SELECT#glued\n*", "SELECT *"),
        ("# only a comment\n   # and another", ""),
        ('SELECT * { ?s ?p "a  b # not a comment" }', 'SELECT * { ?s ?p "a  b # not a comment" }'),
        ("SELECT * { ?s ?p 'single  # quoted' }", "SELECT * { ?s ?p 'single  # quoted' }"),
        ('SELECT * { ?s ?p """long\n\n  # kept""" } # dropped', 'SELECT * { ?s ?p """long\n\n  # kept""" }'),
        ("SELECT * { ?s ?p '''long\n  'x' ''' }", "SELECT * { ?s ?p '''long\n  'x' ''' }"),
        ('SELECT * { ?s ?p "esc \\"  # still" }  # c', 'SELECT * { ?s ?p "esc \\"  # still" }'),
        ("SELECT * { <http://x.org/a#frag>   ?p ?o }", "SELECT * { <http://x.org/a#frag> ?p ?o }"),
        ("SELECT * { ?s ?p ?o FILTER(?o <  5 || ?o >  9) } # c", "SELECT * { ?s ?p ?o FILTER(?o < 5 || ?o > 9) }"),
        ('SELECT * { ?s ?p "unterminated   x  ', 'SELECT * { ?s ?p "unterminated   x  '),
    ],
)
def test_normalises_layout_and_keeps_strings_and_iris(text: str, expected: str) -> None:
    assert normalise_query_text(text) == expected


def test_queries_differing_only_inside_a_literal_stay_different() -> None:
    first = normalise_query_text('SELECT * { ?s ?p "a b" }')
    second = normalise_query_text('SELECT * { ?s ?p "a  b" }')
    third = normalise_query_text('SELECT * { ?s ?p "a b#c" }')
    assert len({first, second, third}) == 3

"""The embedded store's template path does not tokenize ordinary queries (issue 27: store_latency ratio)."""

from __future__ import annotations

import pytest

from saga_kgqa.kg.embedded import dotted_names

LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
NEIGHBOURHOOD = (
    "SELECT ?p ?o ?oLabel WHERE { <http://example.org/kg/Q1.2> ?p ?o . "
    f"OPTIONAL {{ ?o <{LABEL}> ?oLabel FILTER(LANG(?oLabel) = 'en') }} }} LIMIT 200"
)


def test_a_query_of_full_iris_is_passed_through_without_tokenizing(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = dotted_names.tokenize
    monkeypatch.setattr(dotted_names, "tokenize", lambda text: calls.append(text) or real(text))
    assert dotted_names.escape_dotted_local_names(NEIGHBOURHOOD) == NEIGHBOURHOOD
    assert calls == []


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("SELECT ?n WHERE { ?d ns:type.object.name ?n }", r"SELECT ?n WHERE { ?d ns:type\.object\.name ?n }"),
        (r"ASK { ns:a\~b.c.d ?p ?o }", r"ASK { ns:a\~b\.c\.d ?p ?o }"),
        ("ASK { ex:a·b.c.d ?p ?o }", r"ASK { ex:a·b\.c\.d ?p ?o }"),
        ('ASK { ?s ?p "ns:not.a.name" }', 'ASK { ?s ?p "ns:not.a.name" }'),
    ],
)
def test_dotted_prefixed_names_are_still_escaped(text: str, escaped: str) -> None:
    assert dotted_names.escape_dotted_local_names(text) == escaped

"""The ``bif:contains`` expression built from a caller's name: words only, never the caller's operators."""

from __future__ import annotations

import pytest

from saga_kgqa.sources.virtuoso_text import match_kind, text_expression


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Gene Centre", '"gene" AND ("centre" OR "centre*")'),
        ("Kin", '"kin"'),  # too short for the engine's wildcard (FT370)
        ("UniProt:P12345", '("uniprot" AND ("p12345" OR "p12345*")) OR ("p12345") OR ("12345")'),
        ('Gene" OR "a*', '"gene" AND "or" AND "a"'),
        ("  ", None),
        ("«»!", None),
    ],
)
def test_expression_holds_quoted_words_only(text: str, expected: str | None) -> None:
    assert text_expression(text) == expected


def test_match_kinds_follow_the_tantivy_index() -> None:
    assert match_kind("gene centre", "Gene Centre") == "exact"
    assert match_kind("UniProt:P12345", "P12345") == "exact"
    assert match_kind("Kinas", "Kinase A") == "prefix"
    assert match_kind("Centre Gene", "Gene Centre") == "words"
    assert match_kind("Cent", "Gene Centre") == "substring"

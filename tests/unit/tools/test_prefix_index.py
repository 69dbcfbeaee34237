"""PrefixIndex: the same compact ids as compact_iri's pass over the mapping, for IRIs of every kind."""

from __future__ import annotations

import itertools

import pytest

from saga_kgqa.tools.render import PrefixIndex, compact_iri, iri_text

#: Nested namespaces, one namespace under two names (the first usable name wins), an unusable
#: prefix name, an empty namespace, and a namespace that is a prefix of another's name.
PREFIXES = {
    "ex": "http://example.org/",
    "exv": "http://example.org/vocab#",
    "exa": "http://example.org/a/",
    "1bad": "http://example.org/a/b/",
    "dup": "http://dup.org/ns/",
    "dup2": "http://dup.org/ns/",
    "empty": "",
    "urn": "urn:x:",
    "ab": "http://example.org/ab",
}
LOCALS = ["x", "Foo_1", "a.b", "a.", "", "%41b", "%4", "x/y", "é", "b/c", "-x", ".x", "x#y", "1", "vocab#z"]


def _iris() -> list[str]:
    namespaces = [*PREFIXES.values(), "http://other.org/", "http://example.org/vocab", "http://dup.org/"]
    return [namespace + local for namespace, local in itertools.product(namespaces, LOCALS)]


@pytest.mark.parametrize("iri", _iris())
def test_an_index_gives_the_mappings_own_compact_id(iri: str) -> None:
    index = PrefixIndex(PREFIXES)
    assert compact_iri(iri, index) == compact_iri(iri, PREFIXES) == index.compact(iri)


def test_the_longest_usable_namespace_and_the_first_usable_name_win() -> None:
    index = PrefixIndex(PREFIXES)
    assert index.compact("http://example.org/a/b") == "exa:b"  # longer than ex:, and a/b is no local name
    assert index.compact("http://example.org/a/b/c") == "<http://example.org/a/b/c>"  # 1bad is no prefix name
    assert index.compact("http://dup.org/ns/x") == "dup:x"
    assert index.compact("http://example.org/abc") == "ab:c"
    assert iri_text("http://example.org/vocab#memberOf", index) == "exv:memberOf"


def test_an_index_is_a_read_only_copy_of_the_mapping() -> None:
    source = dict(PREFIXES)
    index = PrefixIndex(source)
    source["late"] = "http://late.org/"
    assert dict(index) == PREFIXES and len(index) == len(PREFIXES) and index["ex"] == "http://example.org/"
    assert index.compact("http://late.org/x") == "<http://late.org/x>"

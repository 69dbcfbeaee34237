"""Nearest property names for an invented one, over an index as large as Freebase's (issue 13)."""

from __future__ import annotations

import gc

from saga_kgqa.schema import SchemaIndex
from saga_kgqa.schema.model import PropertySchema
from saga_kgqa.schema.property_names import _TABLES, local_key, nearest_properties

NS = "http://rdf.freebase.com/ns/"


def _index(names: list[str]) -> SchemaIndex:
    return SchemaIndex(properties={NS + name: PropertySchema(iri=NS + name) for name in names})


def _large() -> SchemaIndex:
    # 20,000 properties of Freebase's shape plus the real ones the test looks for.
    filler = [f"domain{i % 97}.type{i}.prop_{i}" for i in range(20_000)]
    return _index([*filler, "people.person.place_of_birth", "people.person.date_of_birth", "pv.hasSupplier"])


def test_the_nearest_names_are_found_among_twenty_thousand_and_never_the_name_itself() -> None:
    schema = _large()
    found = nearest_properties(schema, NS + "people.person.place_of_birth", limit=2)
    assert found[0] == NS + "people.person.date_of_birth"
    assert NS + "people.person.place_of_birth" not in found
    assert nearest_properties(schema, "http://example.org/pv#supplier", limit=1) == [NS + "pv.hasSupplier"]


def test_nothing_below_the_cutoff_is_suggested() -> None:
    schema = _index(["people.person.place_of_birth"])
    assert nearest_properties(schema, NS + "zzz", limit=3) == []


def test_the_key_table_is_built_once_per_index_and_freed_with_it() -> None:
    schema = _index(["alpha", "beta"])
    nearest_properties(schema, NS + "alpah", limit=1)
    table = _TABLES[id(schema)]
    nearest_properties(schema, NS + "bet", limit=1)
    assert _TABLES[id(schema)] is table
    key = id(schema)
    del schema
    gc.collect()
    assert key not in _TABLES


def test_local_keys_are_the_lower_cased_local_name() -> None:
    assert local_key("http://example.org/pv#hasSupplier") == "hassupplier"
    assert local_key(NS + "people.person.Place_Of_Birth") == "people.person.place_of_birth"
    assert local_key("http://example.org/a/b/") == "b"

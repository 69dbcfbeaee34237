"""Property swaps: choosing a domain-incompatible replacement and rewriting every spelling of the property."""

from __future__ import annotations

import random

import pytest
from bench.grounding_eval.gold_patterns import property_uses
from bench.grounding_eval.property_swap import choose_swap, conflicting_properties, replace_property

from saga_kgqa.benchmarks.datasets import GoldQuestion
from saga_kgqa.schema import ClassInfo, PropertySchema, SchemaIndex

EX = "http://example.org/"
ONTOP = "http://valuenet/ontop/"


def _schema() -> SchemaIndex:
    classes = {
        EX + "Agent": ClassInfo(iri=EX + "Agent"),
        EX + "Employee": ClassInfo(iri=EX + "Employee", parents=frozenset({EX + "Agent"})),
        EX + "Manager": ClassInfo(iri=EX + "Manager", parents=frozenset({EX + "Employee"})),
        EX + "Product": ClassInfo(iri=EX + "Product"),
    }
    domains = {"name": "Agent", "reports": "Manager", "price": "Product", "weight": "Product"}
    properties = {
        EX + p: PropertySchema(iri=EX + p, domain=frozenset({EX + d}), domain_source="formal")
        for p, d in domains.items()
    }
    properties[EX + "guess"] = PropertySchema(
        iri=EX + "guess", domain=frozenset({EX + "Product"}), domain_source="induced"
    )
    properties[EX + "note"] = PropertySchema(iri=EX + "note")
    return SchemaIndex(properties=properties, classes=classes)


SCHEMA = _schema()


def test_only_formal_domains_that_exclude_every_type_qualify() -> None:
    # Manager's domain is a subclass of Employee: not a conflict in subclass-aware checking.
    assert conflicting_properties(SCHEMA, {EX + "Employee"}) == [EX + "price", EX + "weight"]
    assert conflicting_properties(SCHEMA, {EX + "Employee"}, exclude={EX + "price"}) == [EX + "weight"]
    assert conflicting_properties(SCHEMA, {EX + "Employee", EX + "Product"}) == []
    assert conflicting_properties(SCHEMA, set()) == []


def test_prefixed_full_and_escaped_spellings_are_all_replaced() -> None:
    query = f"PREFIX ex: <{EX}>\nSELECT * WHERE {{ ?a ex:name ?n . ?b <{EX}name> ?m . ?c ex:name/ex:note ?o }}"
    swapped = replace_property(query, EX + "name", EX + "price")
    assert swapped.count(f"<{EX}price>") == 3
    assert "name" not in swapped.split("WHERE")[1]
    escaped = r"SELECT ?n WHERE { ?s a :singer . ?s :singer\#name ?n }"
    assert replace_property(escaped, ONTOP + "singer#name", ONTOP + "song#title", prefixes={"": ONTOP}) == (
        f"SELECT ?n WHERE {{ ?s a :singer . ?s <{ONTOP}song#title> ?n }}"
    )


def test_strings_and_comments_are_left_alone() -> None:
    query = f'PREFIX ex: <{EX}>\nSELECT * WHERE {{ ?a ex:name "ex:name" }} # ex:name\n'
    swapped = replace_property(query, EX + "name", EX + "price")
    assert swapped == f'PREFIX ex: <{EX}>\nSELECT * WHERE {{ ?a <{EX}price> "ex:name" }} # ex:name\n'


def test_a_later_prefix_declaration_wins_and_undeclared_prefixes_are_not_resolved() -> None:
    query = f"PREFIX ex: <http://other/>\nPREFIX ex: <{EX}>\nSELECT * WHERE {{ ?a ex:name ?n . ?b zz:name ?m }}"
    swapped = replace_property(query, EX + "name", EX + "price")
    assert f"?a <{EX}price>" in swapped and "zz:name" in swapped


def test_a_property_that_is_not_in_the_query_is_an_error() -> None:
    with pytest.raises(ValueError, match="does not occur"):
        replace_property(f"SELECT * WHERE {{ ?a <{EX}name> ?n }}", EX + "price", EX + "weight")


def test_a_swap_picks_a_typed_subject_and_rewrites_the_query() -> None:
    query = f"PREFIX ex: <{EX}> SELECT * WHERE {{ ?e ex:name ?n . ?p ex:note ?x }}"
    question = GoldQuestion("t:1", "t", "q", query)
    uses = property_uses(query)
    swap = choose_swap(question, uses, {"?e": frozenset({EX + "Employee"})}, SCHEMA, random.Random(1))
    assert swap is not None
    assert (swap.subject, swap.original) == ("?e", EX + "name")
    assert swap.replacement in {EX + "price", EX + "weight"}
    assert f"?e <{swap.replacement}> ?n" in swap.sparql
    assert property_uses(swap.sparql)  # still a valid query


def test_no_swap_without_a_typed_subject_or_a_conflicting_property() -> None:
    query = f"PREFIX ex: <{EX}> SELECT * WHERE {{ ?e ex:name ?n }}"
    question = GoldQuestion("t:1", "t", "q", query)
    uses = property_uses(query)
    assert choose_swap(question, uses, {}, SCHEMA, random.Random(1)) is None
    both = {"?e": frozenset({EX + "Employee", EX + "Product"})}
    assert choose_swap(question, uses, both, SCHEMA, random.Random(1)) is None

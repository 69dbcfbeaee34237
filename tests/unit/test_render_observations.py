"""Rendering of tool results built by hand: byte caps on huge neighbourhoods, compact entries."""

from __future__ import annotations

from saga_kgqa.tools.render_observations import TextCaps, property_text, render_lookup, value_text
from saga_kgqa.tools.results import HiddenProperty, KeptProperty, LookupResult, PropertyInfo, Ref, Value

EX = "http://example.org/"


def ref(name: str, label: str | None = None) -> Ref:
    return Ref(iri=EX + name, id=f"ex:{name}", label=label)


def big_lookup(kept: int, hidden: int) -> LookupResult:
    long = "x" * 300
    kept_properties = tuple(
        KeptProperty(
            info=PropertyInfo(
                property=ref(f"p{i}{long}", f"label {i} {long}"),
                description=f"description {i} {long}",
                domain=tuple(ref(f"C{j}") for j in range(20)),
                range=(ref("Range"),),
                domain_source="formal",
                range_source="induced",
            ),
            value_count=500,
            values=tuple(Value(kind="literal", value=f"v{k} {long}") for k in range(3)),
            decision="keep",
            basis="exact",
            reason="type {C0} is in the domain",
        )
        for i in range(kept)
    )
    hidden_properties = tuple(
        HiddenProperty(
            info=PropertyInfo(property=ref(f"h{i}"), domain=(ref("Product"),), domain_source="induced"),
            value_count=1,
            basis="conflict",
            reason="types {Employee} conflict with the induced domain {Product}",
        )
        for i in range(hidden)
    )
    return LookupResult(
        entity=ref("e", "An entity"),
        found=True,
        types=(ref("Employee"),),
        checked_types=(ref("Employee"),),
        kept=kept_properties,
        hidden=hidden_properties,
        shown=kept,
    )


def test_a_huge_neighbourhood_fits_the_byte_cap_and_keeps_the_hidden_line() -> None:
    text, listed = render_lookup(big_lookup(kept=300, hidden=50), TextCaps(observation_bytes=3000))
    assert len(text.encode("utf-8")) <= 3000
    lines = text.splitlines()
    assert lines[0] == 'Entity "An entity" (ex:e)'
    assert lines[-1].startswith("50 properties hidden (subclass check), domain conflicts with ex:Employee: ")
    assert "ex:h0 (domain ex:Product, induced)" in lines[-1]
    assert "(+42 more)" in lines[-1]
    assert 0 < listed < 300
    assert lines[2] == f"Properties ({listed} shown of 300 kept; 50 hidden):"
    assert lines[3 + listed].startswith(f"({300 - listed} more properties not shown: ")


def test_compact_property_entry() -> None:
    info = PropertyInfo(
        property=ref("memberOf", "member of"),
        description="The department.",
        domain=(ref("Agent"),),
        range=(ref("Department"),),
        domain_source="formal",
        range_source="formal",
    )
    assert property_text(info, TextCaps()) == 'ex:memberOf: "The department." — domain: ex:Agent; range: ex:Department'
    wikidata_like = PropertyInfo(property=ref("P136", "genre"), domain=(ref("Q7725634", "literary work"),))
    assert property_text(wikidata_like, TextCaps()) == (
        '"genre" (ex:P136) — domain: "literary work" (ex:Q7725634); range: unknown'
    )
    assert property_text(PropertyInfo(property=ref("p")), TextCaps()) == "ex:p — domain, range: unknown"


def test_values_render_by_kind() -> None:
    caps = TextCaps()
    assert value_text(Value(kind="uri", value=EX + "bob", id="ex:bob", label="Bob Jones"), caps) == (
        '"Bob Jones" (ex:bob)'
    )
    assert value_text(Value(kind="uri", value=EX + "bob", id="ex:bob", label="Bob"), caps) == "ex:bob"
    dated = Value(
        kind="literal", value="2024-01-01", datatype="http://www.w3.org/2001/XMLSchema#date", datatype_id="xsd:date"
    )
    assert value_text(dated, caps) == '"2024-01-01"^^xsd:date'
    assert value_text(Value(kind="literal", value="Hallo", lang="de"), caps) == '"Hallo"@de'
    assert value_text(Value(kind="bnode", value="b1"), caps) == "_:b1"

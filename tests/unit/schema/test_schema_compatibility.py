import pytest

from saga_kgqa.schema import ClassInfo, PropertySchema, SchemaIndex
from saga_kgqa.schema.vocab import OWL_THING, RDFS_LITERAL, XSD

EX = "http://example.org/"


def _index() -> SchemaIndex:
    classes = {
        EX + name: ClassInfo(iri=EX + name, parents=frozenset(EX + p for p in parents))
        for name, parents in {
            "Agent": [],
            "Person": ["Agent"],
            "Employee": ["Person"],
            "Manager": ["Employee"],
            "Organization": ["Agent"],
            "Product": [],
            "Place": [],
            "Vehicle": ["Car"],
            "Car": ["Vehicle"],
        }.items()
    }

    def prop(name: str, domain: list[str], range_: list[str] = (), source: str = "formal") -> PropertySchema:
        return PropertySchema(
            iri=EX + name,
            domain=frozenset(d if ":" in d else EX + d for d in domain),
            range=frozenset(r if ":" in r else EX + r for r in range_),
            domain_source=source if domain else "none",
            range_source=source if range_ else "none",
        )

    properties = [
        prop("hasManager", ["Employee"], ["Manager"]),
        prop("hasReport", ["Manager"], ["Employee"]),
        prop("locatedIn", ["Organization", "Product"], ["Place"]),
        prop("note", []),
        prop("age", ["Person"], [XSD + "integer"]),
        prop("score", ["Person"], [XSD + "decimal"]),
        prop("anything", [OWL_THING]),
        prop("wheels", ["Vehicle"]),
        prop("worksFor", ["Person"], source="induced"),
        prop("label", [], [RDFS_LITERAL]),
    ]
    return SchemaIndex(properties={p.iri: p for p in properties}, classes=classes)


INDEX = _index()


def test_entity_typed_with_the_domain_class_is_kept_in_both_modes() -> None:
    for mode in ("subclass", "exact"):
        verdict = INDEX.compatibility([EX + "Employee"], EX + "hasManager", mode=mode)
        assert verdict.decision == "keep"
        assert verdict.basis == "exact"
        assert verdict.matched == {EX + "Employee"}


def test_subclass_instance_is_kept_in_subclass_mode_and_dropped_in_exact_mode() -> None:
    verdict = INDEX.compatibility([EX + "Manager"], EX + "hasManager")
    assert (verdict.decision, verdict.basis) == ("keep", "subclass")
    assert INDEX.compatibility([EX + "Manager"], EX + "hasManager", mode="exact").decision == "drop"


def test_broader_type_is_kept_because_the_entity_may_be_narrower() -> None:
    verdict = INDEX.compatibility([EX + "Employee"], EX + "hasReport")
    assert (verdict.decision, verdict.basis) == ("keep", "superclass")
    assert INDEX.compatibility([EX + "Employee"], EX + "hasReport", mode="exact").decision == "drop"


def test_conflicting_types_are_dropped_with_a_reason() -> None:
    verdict = INDEX.compatibility([EX + "Product"], EX + "hasManager")
    assert verdict.decision == "drop"
    assert verdict.basis == "conflict"
    assert verdict.source == "formal"
    assert "Employee" in verdict.reason and "Product" in verdict.reason
    assert not verdict.keeps


def test_union_domain_accepts_any_member_and_their_subclasses() -> None:
    assert INDEX.compatibility([EX + "Product"], EX + "locatedIn").decision == "keep"
    assert INDEX.compatibility([EX + "Organization"], EX + "locatedIn").decision == "keep"
    assert INDEX.compatibility([EX + "Person"], EX + "locatedIn").decision == "drop"


def test_one_compatible_type_among_several_is_enough() -> None:
    assert INDEX.compatibility([EX + "Place", EX + "Employee"], EX + "hasManager").decision == "keep"


@pytest.mark.parametrize("mode", ["subclass", "exact"])
def test_unknown_domain_is_unknown_and_kept(mode: str) -> None:
    verdict = INDEX.compatibility([EX + "Product"], EX + "note", mode=mode)  # type: ignore[arg-type]
    assert (verdict.decision, verdict.basis) == ("unknown", "no_schema")
    assert verdict.keeps


def test_property_missing_from_the_index_is_unknown() -> None:
    verdict = INDEX.compatibility([EX + "Product"], EX + "neverSeen")
    assert verdict.decision == "unknown"
    assert verdict.keeps


def test_no_entity_types_is_unknown() -> None:
    verdict = INDEX.compatibility([], EX + "hasManager")
    assert (verdict.decision, verdict.basis) == ("unknown", "no_types")


def test_universal_domain_keeps_everything() -> None:
    verdict = INDEX.compatibility([EX + "Product"], EX + "anything", mode="exact")
    assert (verdict.decision, verdict.basis) == ("keep", "universal")


def test_classes_on_a_cycle_are_compatible_with_each_other() -> None:
    assert INDEX.compatibility([EX + "Car"], EX + "wheels").decision == "keep"


def test_induced_domain_drops_but_says_where_it_came_from() -> None:
    verdict = INDEX.compatibility([EX + "Product"], EX + "worksFor")
    assert verdict.decision == "drop"
    assert verdict.source == "induced"


def test_untyped_class_outside_the_hierarchy_conflicts() -> None:
    assert INDEX.compatibility([EX + "Spaceship"], EX + "hasManager").decision == "drop"


def test_range_of_entities() -> None:
    assert INDEX.range_compatibility([EX + "Manager"], EX + "hasManager").decision == "keep"
    assert INDEX.range_compatibility([EX + "Place"], EX + "hasManager").decision == "drop"
    assert INDEX.range_compatibility([], EX + "hasManager").decision == "unknown"


def test_range_of_literals_uses_the_xsd_hierarchy() -> None:
    assert INDEX.range_compatibility([XSD + "integer"], EX + "age").decision == "keep"
    assert INDEX.range_compatibility([XSD + "int"], EX + "age").decision == "keep"
    assert INDEX.range_compatibility([XSD + "integer"], EX + "score").decision == "keep"
    assert INDEX.range_compatibility([XSD + "string"], EX + "age").decision == "drop"
    assert INDEX.range_compatibility([XSD + "double"], EX + "age").basis == "numeric"
    assert INDEX.range_compatibility([XSD + "double"], EX + "age", mode="exact").decision == "drop"
    assert INDEX.range_compatibility([XSD + "string"], EX + "label").decision == "keep"


def test_literal_never_satisfies_a_class_range() -> None:
    verdict = INDEX.range_compatibility([XSD + "string"], EX + "hasManager")
    assert verdict.decision == "drop"

from saga_kgqa.schema.hierarchy import ClassHierarchy
from saga_kgqa.schema.vocab import RDFS_LITERAL, XSD


def test_closure_is_transitive_and_excludes_self_without_cycle() -> None:
    h = ClassHierarchy({"Manager": ["Employee"], "Employee": ["Person"], "Person": ["Agent"]})
    assert h.ancestors("Manager") == {"Employee", "Person", "Agent"}
    assert h.closure("Manager") == {"Manager", "Employee", "Person", "Agent"}
    assert h.ancestors("Agent") == frozenset()
    assert h.is_subclass("Manager", "Agent")
    assert not h.is_subclass("Agent", "Manager")


def test_diamond_hierarchy() -> None:
    h = ClassHierarchy({"D": ["B", "C"], "B": ["A"], "C": ["A"]})
    assert h.ancestors("D") == {"A", "B", "C"}


def test_two_cycle_members_are_ancestors_of_each_other_and_themselves() -> None:
    h = ClassHierarchy({"Car": ["Vehicle", "Product"], "Vehicle": ["Car"], "Sedan": ["Car"]})
    assert h.ancestors("Car") == {"Car", "Vehicle", "Product"}
    assert h.ancestors("Vehicle") == {"Car", "Vehicle", "Product"}
    assert h.ancestors("Sedan") == {"Car", "Vehicle", "Product"}
    assert "Sedan" not in h.ancestors("Sedan")


def test_self_loop_and_long_cycle() -> None:
    h = ClassHierarchy({"A": ["A"], "X": ["Y"], "Y": ["Z"], "Z": ["X", "Top"]})
    assert h.ancestors("A") == {"A"}
    assert h.ancestors("Y") == {"X", "Y", "Z", "Top"}


def test_deep_chain_does_not_recurse() -> None:
    depth = 3_000  # far beyond the recursion limit
    h = ClassHierarchy({f"C{i}": [f"C{i + 1}"] for i in range(depth)})
    assert len(h.ancestors("C0")) == depth
    assert h.is_subclass("C0", f"C{depth}")


def test_xsd_datatypes_are_built_in() -> None:
    h = ClassHierarchy({})
    assert h.is_subclass(XSD + "int", XSD + "integer")
    assert h.is_subclass(XSD + "integer", XSD + "decimal")
    assert h.is_subclass(XSD + "string", RDFS_LITERAL)
    assert not h.is_subclass(XSD + "decimal", XSD + "integer")


def test_unknown_class_has_no_parents() -> None:
    h = ClassHierarchy({"A": ["B"]})
    assert not h.knows("Z")
    assert h.parents("Z") == frozenset()
    assert h.closure("Z") == {"Z"}

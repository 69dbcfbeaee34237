"""How Wikidata's P2309 relation (instance of, subclass of, either) maps onto the compatibility check."""

from __future__ import annotations

import pytest

from saga_kgqa.schema import ClassHierarchy
from saga_kgqa.schema.compatibility import ConstraintRelation, Decision, check_relation_constraint

WD = "http://www.wikidata.org/entity/"
FILM, WORK, HUMAN, ANIMATED = WD + "Q11424", WD + "Q386724", WD + "Q5", WD + "Q202866"
HIERARCHY = ClassHierarchy({ANIMATED: {FILM}, FILM: {WORK}})


@pytest.mark.parametrize(
    ("relation", "types", "superclasses", "decision"),
    [
        ("instance", [ANIMATED], None, "keep"),  # P31 type below the class
        ("instance", [HUMAN], None, "drop"),
        ("instance", [HUMAN], [FILM], "drop"),  # superclasses do not count for instance-of
        ("subclass", [HUMAN], None, "unknown"),  # a class's superclasses are needed
        ("subclass", [], [ANIMATED], "keep"),  # a subclass of animated film is a subclass of film
        ("subclass", [FILM], [HUMAN], "drop"),  # P31 types do not count for subclass-of
        ("instance_or_subclass", [ANIMATED], None, "keep"),
        ("instance_or_subclass", [HUMAN], None, "unknown"),  # may still be a subclass
        ("instance_or_subclass", [HUMAN], [], "drop"),  # known to have no superclass
        ("instance_or_subclass", [HUMAN], [FILM], "keep"),
    ],
)
def test_relation_semantics(
    relation: ConstraintRelation, types: list[str], superclasses: list[str] | None, decision: Decision
) -> None:
    verdict = check_relation_constraint(
        types, superclasses, frozenset({FILM}), HIERARCHY, relation=relation, source="formal", side="domain"
    )
    assert verdict.decision == decision, verdict.reason

"""Type compatibility of a property with the types of its subject (domain) or object (range).

The rule is the paper's Eq. 3 made permissive where the schema is silent: an unknown
domain, or a subject of unknown type, is never grounds to hide a property.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from saga_kgqa.schema.hierarchy import ClassHierarchy
from saga_kgqa.schema.vocab import NUMERIC_DATATYPES, UNIVERSAL_CLASSES, local_name

Decision = Literal["keep", "drop", "unknown"]
CompatibilityMode = Literal["subclass", "exact"]
SchemaSource = Literal["formal", "curated", "induced", "surveyed", "none"]
#: How a value must relate to a constraint class (Wikidata's P2309 "relation"):
#: ``instance`` (instance of, Q21503252), ``subclass`` (subclass of, Q21514624) or
#: ``instance_or_subclass`` (instance or subclass of, Q30208840).
ConstraintRelation = Literal["instance", "subclass", "instance_or_subclass"]
Basis = Literal[
    "no_schema",
    "no_types",
    "universal",
    "exact",
    "subclass",
    "superclass",
    "numeric",
    "conflict",
    "unknown_ancestry",
    "observed_domain",
    "unconfirmed_source",
    "own_property",
    "name_property",
]

#: The rule that hid a property at lookup (:mod:`saga_kgqa.tools.lookup.hiding`).
HideRule = Literal["domain_conflict", "closed_schema"]


class Verdict(BaseModel):
    """The outcome of one compatibility check.

    Attributes:
        decision: ``keep`` (compatible), ``drop`` (known conflict) or ``unknown`` (the
            schema or the types are missing; callers keep the property).
        reason: One sentence for logs and for the model.
        basis: Which rule decided.
        source: Where the constraint came from (``none`` when there was none).
        matched: The constraint classes that were matched.
    """

    model_config = ConfigDict(frozen=True)

    decision: Decision
    reason: str
    basis: Basis
    source: SchemaSource = "none"
    matched: frozenset[str] = frozenset()

    @property
    def keeps(self) -> bool:
        """True unless the verdict is a known conflict (``unknown`` keeps)."""
        return self.decision != "drop"


def check_constraint(
    types: Iterable[str],
    constraint: frozenset[str],
    hierarchy: ClassHierarchy,
    *,
    source: SchemaSource,
    side: Literal["domain", "range"],
    mode: CompatibilityMode = "subclass",
) -> Verdict:
    """Check a set of known types against a domain or range constraint.

    In ``subclass`` mode a type is compatible when it is a constraint class or one of its
    subclasses, and also when it is a *superclass* of a constraint class: an entity known
    only as an ``Employee`` may still be a ``Manager``, so a ``Manager``-domain property
    is not a conflict. Numeric datatypes are compatible with each other (SPARQL compares
    them by value, and ontologies often say ``xsd:double`` where the data holds
    ``xsd:decimal``). ``exact`` mode is the paper's set intersection.

    Args:
        types: The known types of the subject (domain) or object (range).
        constraint: The declared classes (a union: any one suffices).
        hierarchy: The class hierarchy used in ``subclass`` mode.
        source: Where the constraint came from, reported in the verdict.
        side: ``domain`` or ``range``, used in the reason.
        mode: ``subclass`` (default) or ``exact``.

    Returns:
        The verdict; ``unknown`` when the constraint or the types are missing.
    """
    known = frozenset(types)
    if not constraint or source == "none":
        return Verdict(decision="unknown", reason=f"no {side} is known for this property", basis="no_schema")
    if not known:
        return Verdict(
            decision="unknown", reason="no types are known to check against", basis="no_types", source=source
        )
    universal = constraint & UNIVERSAL_CLASSES
    if universal:
        return _kept(f"the {side} admits every resource", "universal", source, universal)
    direct = known & constraint
    if direct:
        return _kept(f"type {_names(direct)} is in the {side}", "exact", source, direct)
    if mode == "subclass":
        narrower = frozenset(c for c in constraint for t in known if c in hierarchy.ancestors(t))
        if narrower:
            return _kept(f"a known type is a subclass of {side} {_names(narrower)}", "subclass", source, narrower)
        broader = frozenset(c for c in constraint for t in known if t in hierarchy.ancestors(c))
        if broader:
            reason = f"a known type is broader than {side} {_names(broader)}; the value may belong to it"
            return _kept(reason, "superclass", source, broader)
        numeric = constraint & NUMERIC_DATATYPES
        if numeric and known & NUMERIC_DATATYPES:
            return _kept(f"numeric values are comparable with {side} {_names(numeric)}", "numeric", source, numeric)
    return Verdict(
        decision="drop",
        reason=f"types {_names(known)} conflict with the {source} {side} {_names(constraint)}",
        basis="conflict",
        source=source,
    )


def check_relation_constraint(
    types: Iterable[str],
    superclasses: Iterable[str] | None,
    constraint: frozenset[str],
    hierarchy: ClassHierarchy,
    *,
    relation: ConstraintRelation,
    source: SchemaSource,
    side: Literal["domain", "range"],
    mode: CompatibilityMode = "subclass",
) -> Verdict:
    """Check a value against a constraint whose classes must be reached by instance-of, subclass-of or either.

    ``types`` are the value's classes (P31 on Wikidata) and ``superclasses`` its own
    superclasses (P279), ``None`` when they are not known. The mapping onto
    :func:`check_constraint`:

    * ``instance``: the types are checked, as for an RDFS domain.
    * ``subclass``: the value must itself be a class below a constraint class, so its
      superclasses are checked; with unknown superclasses the verdict is ``unknown``.
    * ``instance_or_subclass``: types and superclasses together; a conflict found on the
      types alone is downgraded to ``unknown`` while the superclasses are not known,
      since the value may be a subclass of a constraint class.
    """
    if relation == "instance":
        return check_constraint(types, constraint, hierarchy, source=source, side=side, mode=mode)
    if relation == "subclass":
        if superclasses is None:
            return Verdict(
                decision="unknown",
                reason=f"the {side} asks for a subclass of {_names(constraint)}; the superclasses are not known",
                basis="no_types",
                source=source,
            )
        return check_constraint(superclasses, constraint, hierarchy, source=source, side=side, mode=mode)
    known = frozenset(types) | frozenset(superclasses or ())
    verdict = check_constraint(known, constraint, hierarchy, source=source, side=side, mode=mode)
    if verdict.decision == "drop" and superclasses is None:
        return Verdict(
            decision="unknown",
            reason=f"no type is in the {side} {_names(constraint)}, but the value may be a subclass of it",
            basis="no_types",
            source=source,
        )
    return verdict


def _kept(reason: str, basis: Basis, source: SchemaSource, matched: frozenset[str]) -> Verdict:
    return Verdict(decision="keep", reason=reason, basis=basis, source=source, matched=matched)


def _names(iris: Iterable[str], limit: int = 5) -> str:
    """Render a few IRIs by their local names for a reason sentence."""
    ordered = sorted(iris)
    shown = [local_name(i) for i in ordered[:limit]]
    more = f" (+{len(ordered) - limit} more)" if len(ordered) > limit else ""
    return "{" + ", ".join(shown) + "}" + more

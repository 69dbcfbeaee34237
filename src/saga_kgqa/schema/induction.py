"""Empirical schema induction: the paper's fallback for properties without a formal domain or range.

For each property a bounded sample of distinct subjects (and of distinct objects) is
read together with their types, in one query per side:

    SELECT ?v ?t WHERE { { SELECT DISTINCT ?v WHERE { ?v <p> ?o } LIMIT N } OPTIONAL { ?v <type> ?t } }

The sample is the first N values the store returns, not a uniform random sample
(``ORDER BY RAND()`` would make big endpoints read every use of the property), and the
first N are biased: on CK25 the first 200 subjects of ``pv:id`` include no ``Supplier``
although 250 suppliers have one. Where the graph has few enough classes, a
class-stratified sample corrects this: up to N instances of every class, and the
properties they use. The induced domain is the union of the types carried by at least
``support`` of the typed sampled values and of the classes whose sampled instances use
the property. A union errs towards keeping properties, the safe direction.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from saga_kgqa.errors import QueryTimeout
from saga_kgqa.kg.core.counts import count_of
from saga_kgqa.schema.model import ClassUsage, SideEvidence, TypeCount
from saga_kgqa.schema.queries import TemplateRunner, path_alternative
from saga_kgqa.schema.vocab import is_datatype, literal_type

Side = Literal["subject", "object"]

#: Types kept as evidence per side (the most frequent ones); rarer types have too little
#: support to enter a domain with any sensible threshold.
MAX_EVIDENCE_TYPES = 25
_SURVEY_PATTERNS: tuple[tuple[Side, str], ...] = (("subject", "?v ?p ?o"), ("object", "?s ?p ?v"))
# Rows read per sampled value: enough for entities with many types without unbounded reads.
_TYPE_ROWS_PER_VALUE = 20


@dataclass(frozen=True, slots=True)
class InductionSettings:
    """How much to sample and what counts as enough support.

    Attributes:
        sample_size: Distinct subjects (and objects) sampled per property.
        support: Share of the typed sampled values a type needs to enter the domain or range.
        min_sample: Typed values needed before any domain or range is declared.
    """

    sample_size: int = 200
    support: float = 0.05
    min_sample: int = 3


def sample_side(
    runner: TemplateRunner,
    property_iri: str,
    side: Side,
    *,
    type_predicates: Sequence[str],
    sample_size: int,
) -> SideEvidence:
    """Sample distinct subjects or objects of a property and count their types.

    Literal objects are counted under their datatype (``xsd:string`` when untyped).

    Raises:
        QueryRejected: The property IRI cannot be put in a query.
        BackendError: The backend failed.
    """
    pattern = (
        f"?v {path_alternative([property_iri])} ?o"
        if side == "subject"
        else f"?s {path_alternative([property_iri])} ?v"
    )
    rows = runner.select(
        f"SELECT ?v ?t WHERE {{ {{ SELECT DISTINCT ?v WHERE {{ {pattern} }} LIMIT {sample_size} }} "
        f"OPTIONAL {{ ?v {path_alternative(type_predicates)} ?t FILTER(isIRI(?t)) }} }}",
        limit=sample_size * _TYPE_ROWS_PER_VALUE,
        what=f"{side} types of {property_iri}",
    )
    types_of: dict[tuple[str, str], set[str]] = {}
    literals = 0
    counts: Counter[str] = Counter()
    for row in rows:
        value = row["v"]
        key = (value.kind, value.value if value.kind != "literal" else value.n3())
        if key in types_of:
            seen = types_of[key]
        else:
            seen = types_of[key] = set()
            if value.kind == "literal":
                literals += 1
                seen.add(literal_type(value.datatype, value.lang))
                counts[literal_type(value.datatype, value.lang)] += 1
        if "t" in row and row["t"].value not in seen:
            seen.add(row["t"].value)
            counts[row["t"].value] += 1
    untyped = sum(1 for types in types_of.values() if not types)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:MAX_EVIDENCE_TYPES]
    return SideEvidence(
        sampled=len(types_of),
        untyped=untyped,
        literals=literals,
        counts=tuple(TypeCount(type_iri=t, count=n) for t, n in ranked),
    )


def supported_types(evidence: SideEvidence, settings: InductionSettings) -> frozenset[str]:
    """Return the types with enough support to act as a soft domain or range (empty: unknown).

    A type qualifies when at least ``support`` of the typed sampled values carry it, or when
    sampled instances of it use the property (class-stratified sample).
    """
    found = {u.type_iri for u in evidence.class_usage if u.instances_using > 0}
    typed = evidence.sampled - evidence.untyped
    if typed >= max(settings.min_sample, 1):
        found.update(c.type_iri for c in evidence.counts if c.count / typed >= settings.support)
    return frozenset(found)


def survey_classes(
    runner: TemplateRunner,
    classes: Sequence[str],
    *,
    type_predicates: Sequence[str],
    sample_size: int,
    max_properties: int,
) -> dict[str, dict[Side, list[ClassUsage]]]:
    """Sample up to ``sample_size`` instances of each class and count the properties they use.

    Three bounded queries per class: the instances sampled, their outgoing properties and
    their incoming properties. A class whose queries time out is skipped with a note.

    Returns:
        For each property, the classes whose sampled instances use it as subject or object.
    """
    usage: dict[str, dict[Side, list[ClassUsage]]] = {}
    type_path = path_alternative(type_predicates)
    for cls in classes:
        sample = f"{{ SELECT DISTINCT ?v WHERE {{ ?v {type_path} {path_alternative([cls])} }} LIMIT {sample_size} }}"
        try:
            counted = runner.select(
                f"SELECT (COUNT(*) AS ?n) WHERE {{ {sample} }}", limit=1, what=f"instances of {cls}", aggregate=True
            )
            sampled = count_of(counted[0].get("n")) if counted else 0
            if not sampled:
                continue
            for side, pattern in _SURVEY_PATTERNS:
                rows = runner.select(
                    f"SELECT ?p (COUNT(DISTINCT ?v) AS ?n) WHERE {{ {sample} {pattern} }} GROUP BY ?p",
                    limit=max_properties,
                    what=f"properties used by instances of {cls}",
                )
                for row in rows:
                    entry = ClassUsage(type_iri=cls, instances_sampled=sampled, instances_using=count_of(row["n"]))
                    usage.setdefault(row["p"].value, {}).setdefault(side, []).append(entry)
        except QueryTimeout:
            runner.notes.append(f"instances of {cls}: timed out; class left out of the stratified sample")
    return usage


def most_common_datatype(evidence: SideEvidence) -> str | None:
    """Return the dominant literal datatype when most sampled objects are literals."""
    if not evidence.sampled or evidence.literals * 2 < evidence.sampled:
        return None
    for count in evidence.counts:
        if is_datatype(count.type_iri):
            return count.type_iri
    return None


def induce_property(
    runner: TemplateRunner,
    property_iri: str,
    *,
    type_predicates: Sequence[str],
    settings: InductionSettings,
    sides: Sequence[Side] = ("subject", "object"),
) -> dict[Side, SideEvidence]:
    """Sample the requested sides of one property; a side that times out is skipped with a note."""
    evidence: dict[Side, SideEvidence] = {}
    for side in sides:
        try:
            evidence[side] = sample_side(
                runner, property_iri, side, type_predicates=type_predicates, sample_size=settings.sample_size
            )
        except QueryTimeout:
            runner.notes.append(f"{side} types of {property_iri}: timed out; left unknown")
    return evidence

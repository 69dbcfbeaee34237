"""Shared identifier values between two sources, matched under shown transformations and scored.

Each side's literal-valued properties (and, after them, its IRI-valued ones, compared by local
name) are sampled per surveyed class (one bounded query per class and property,
:data:`VALUES_PER_GROUP` values at most); the samples are compared in memory on
:func:`~saga_kgqa.sources.key_match.match_key`, so ``1``, ``"1"``, ``"001"``, ``"XX"``,
``"xx"``, ``" XX"``, ``"SCHEME:XX"`` and ``<…/XX>`` meet. Each pair of properties that shares a
value becomes a :class:`ValueMatch`: of the transformations its shared keys needed, the one that
contains the most keys (the least lossy on a tie) is chosen, and the match is scored on the keys
it joins (:mod:`saga_kgqa.sources.bridge_score`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.schema.queries import path_alternative
from saga_kgqa.sources.bridge_score import (
    ScoreParts,
    agreement,
    containment,
    datatype_part,
    hash_half,
    name_similarity,
    name_words,
)
from saga_kgqa.sources.key_match import MAX_KEY_CHARS, STEPS, Normalisation, loss, match_key, normalisation, written
from saga_kgqa.sources.session import OpenSource

#: Values read per (class, property) of each side.
VALUES_PER_GROUP = 2000
#: (class, property) groups sampled per side at most.
MAX_GROUPS = 120
#: Of those, IRI-valued groups (compared by local name) at most; literal groups are sampled first.
MAX_IRI_GROUPS = 40

Group = tuple[str, str]  # (class, literal-valued property)


@dataclass
class Sample:
    """One property's sampled values on one side."""

    rows: int = 0
    keys: dict[str, Term] = field(default_factory=dict)
    iris: bool = False
    terms: set[Term] = field(default_factory=set)
    shapes: set[tuple[object, ...]] = field(default_factory=set)

    def add(self, term: Term) -> None:
        """Count one sampled value: its key, its term and the shape it is written in."""
        self.keys.setdefault(match_key(term), term)
        if len(self.terms) < VALUES_PER_GROUP * 2:
            self.terms.add(term)
            self.shapes.add(written(term).shape[:-1])  # the padding width varies with the number

    @property
    def one_to_one(self) -> bool:
        """All keys written in one shape, no two of them meeting under the transformations (a re-encodable side)."""
        return len(self.shapes) == 1 and len(self.terms) == len(self.keys)

    @property
    def distinct(self) -> float:
        """Distinct keys per sampled row (1: an id, low: a category)."""
        return len(self.keys) / self.rows if self.rows else 0.0


@dataclass(frozen=True)
class ValueMatch:
    """A pair of properties sharing normalised values."""

    left: Group
    right: Group
    shared: tuple[str, ...]
    left_keys: int
    right_keys: int
    normalisation: Normalisation
    parts: ScoreParts
    examples: tuple[tuple[Term, Term], ...]


def sample_literals(source: OpenSource, notes: list[str]) -> dict[Group, Sample]:
    """Literal values per (class, property) of a source, bounded per group."""
    survey = source.survey()
    reads = source.reads()
    type_path = path_alternative(source.schema().type_predicates)
    samples: dict[Group, Sample] = {}
    groups = [(cls.iri, prop, "literal") for cls in survey.classes for prop in cls.properties] + [
        (cls.iri, prop, "iri") for cls in survey.classes for prop in cls.properties
    ]
    iri_groups = 0
    for cls_iri, prop, kind in groups:
        if not any(k.kind == kind for k in prop.object_kinds) or len(samples) >= MAX_GROUPS:
            continue
        if kind == "iri" and iri_groups >= MAX_IRI_GROUPS:
            continue
        test = f"isLiteral(?v) && STRLEN(STR(?v)) <= {MAX_KEY_CHARS}" if kind == "literal" else "isIRI(?v)"
        body = f"SELECT ?v WHERE {{ ?s {type_path} {iri(cls_iri)} . ?s {iri(prop.iri)} ?v FILTER({test}) }}"
        rows = reads.select(body, limit=VALUES_PER_GROUP, what=f"values of {prop.iri} in {source.name}").rows
        sample = Sample(rows=len(rows), iris=kind == "iri")
        for row in rows:
            term = row.get("v")
            if term is not None:
                sample.add(term)
        if sample.keys:
            iri_groups += kind == "iri"
            key = (cls_iri, prop.iri)
            if key in samples:  # a property holding literals and IRIs: one sample of both
                samples[key].rows += sample.rows
                for term in sample.terms:
                    samples[key].add(term)
            else:
                samples[key] = sample
    notes.extend(reads.notes)
    return samples


def match_values(left: dict[Group, Sample], right: dict[Group, Sample]) -> list[ValueMatch]:
    """Every pair of left and right properties sharing a normalised value, scored."""
    matches: list[ValueMatch] = []
    for lgroup, lsample in left.items():
        lwords = name_words(lgroup[1], lgroup[0])
        halves = [{k for k in lsample.keys if hash_half(k) == h} for h in (0, 1)]
        for rgroup, rsample in right.items():
            if lsample.iris and rsample.iris:
                continue  # IRIs on both sides: the same-IRI kind compares them whole
            rights = rsample.keys.keys()
            shared, rule = best_rule(lsample, rsample)
            if not shared:
                continue
            per_half = [len(half & shared) / len(half) if half else 1.0 for half in halves]
            parts = ScoreParts(
                containment=containment(len(shared), len(lsample.keys), len(rights)),
                distinct=round(max(lsample.distinct, rsample.distinct), 3),
                names=name_similarity(lwords, name_words(rgroup[1], rgroup[0])),
                datatypes=datatype_part(rule, reencoding=lsample.one_to_one and rsample.one_to_one),
                second_batch=agreement(*per_half),
            )
            ordered = sorted(shared)
            matches.append(
                ValueMatch(
                    left=lgroup,
                    right=rgroup,
                    shared=tuple(ordered),
                    left_keys=len(lsample.keys),
                    right_keys=len(rights),
                    normalisation=rule,
                    parts=parts,
                    examples=tuple((lsample.keys[k], rsample.keys[k]) for k in ordered[:3]),
                )
            )
    return matches


def best_rule(left: Sample, right: Sample) -> tuple[set[str], Normalisation]:
    """The shared keys under the transformation that contains the most of them, and that transformation.

    Each shared key needs some steps (:func:`~saga_kgqa.sources.key_match.normalisation`); a
    transformation joins the keys whose steps it includes. Of the rules the keys needed, the one
    joining the most keys wins, the least lossy on a tie (``exact`` before ``case``).
    """
    shared = left.keys.keys() & right.keys.keys()
    needed = {key: normalisation(left.keys[key], right.keys[key]) for key in shared}
    if not needed:
        return set(), "exact"
    union = "+".join(s for s in STEPS if any(s in r.split("+") for r in needed.values())) or "exact"
    counts = Counter([*needed.values(), union])

    def covers(rule: Normalisation) -> set[str]:
        allowed = set(rule.split("+")) if rule != "exact" else set()
        return {k for k, r in needed.items() if r == "exact" or set(r.split("+")) <= allowed}

    rules = sorted(counts, key=lambda r: (loss(r), [STEPS.index(s) for s in r.split("+")] if r != "exact" else []))
    best = max(rules, key=lambda r: (len(covers(r)), -loss(r)))
    return covers(best), best

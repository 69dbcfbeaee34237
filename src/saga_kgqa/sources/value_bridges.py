"""Shared identifier values between two sources, matched after normalisation and scored.

Each side's literal-valued properties are sampled per surveyed class (one bounded query per
class and property, :data:`VALUES_PER_GROUP` values at most); the samples are compared in
memory on :func:`~saga_kgqa.sources.key_match.match_key`, so ``1``, ``"1"``, ``1.0`` and
``"001"`` meet, and each pair of properties that shares a value becomes a :class:`ValueMatch`
with its score's parts (:mod:`saga_kgqa.sources.bridge_score`).
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
from saga_kgqa.sources.key_match import MAX_KEY_CHARS, Normalisation, match_key, normalisation, weakest
from saga_kgqa.sources.session import OpenSource

#: Values read per (class, property) of each side.
VALUES_PER_GROUP = 2000
#: (class, property) groups sampled per side at most.
MAX_GROUPS = 120

Group = tuple[str, str]  # (class, literal-valued property)


@dataclass
class Sample:
    """One property's sampled values on one side."""

    rows: int = 0
    keys: dict[str, Term] = field(default_factory=dict)

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
    reads = source.toolkit().context.reads()
    type_path = path_alternative(source.schema().type_predicates)
    samples: dict[Group, Sample] = {}
    for cls in survey.classes:
        for prop in cls.properties:
            if not any(k.kind == "literal" for k in prop.object_kinds) or len(samples) >= MAX_GROUPS:
                continue
            body = (
                f"SELECT ?v WHERE {{ ?s {type_path} {iri(cls.iri)} . ?s {iri(prop.iri)} ?v "
                f"FILTER(isLiteral(?v) && STRLEN(STR(?v)) <= {MAX_KEY_CHARS}) }}"
            )
            rows = reads.select(body, limit=VALUES_PER_GROUP, what=f"values of {prop.iri} in {source.name}").rows
            sample = Sample(rows=len(rows))
            for row in rows:
                term = row.get("v")
                if term is not None:
                    sample.keys.setdefault(match_key(term), term)
            if sample.keys:
                samples[(cls.iri, prop.iri)] = sample
    notes.extend(reads.notes)
    return samples


def match_values(left: dict[Group, Sample], right: dict[Group, Sample]) -> list[ValueMatch]:
    """Every pair of left and right properties sharing a normalised value, scored."""
    matches: list[ValueMatch] = []
    for lgroup, lsample in left.items():
        lwords = name_words(lgroup[1], lgroup[0])
        halves = [{k for k in lsample.keys if hash_half(k) == h} for h in (0, 1)]
        for rgroup, rsample in right.items():
            shared = lsample.keys.keys() & rsample.keys.keys()
            if not shared:
                continue
            rights = rsample.keys.keys()
            found = Counter(normalisation(lsample.keys[k], rsample.keys[k]) for k in shared)
            rule = weakest(found)
            per_half = [len(half & rights) / len(half) if half else 1.0 for half in halves]
            parts = ScoreParts(
                containment=containment(len(shared), len(lsample.keys), len(rights)),
                distinct=round(max(lsample.distinct, rsample.distinct), 3),
                names=name_similarity(lwords, name_words(rgroup[1], rgroup[0])),
                datatypes=datatype_part(rule),
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

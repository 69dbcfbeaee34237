"""The bridge's score: evidence that generalises, each part shown to the model.

A join candidate is scored on five parts in [0, 1], weighted into one number. The evidence
in the key sets comes first; the names only break ties:

* ``containment`` (0.55): shared keys as a share of the smaller side's distinct keys (a foreign
  key is contained in the key it points at), damped when fewer than :data:`SUPPORT` are shared;
* ``distinct`` (0.2): how close the more distinct side is to one value per row (ids, not categories);
* ``datatypes`` (0.1): 1 when the terms match exactly, less for each shown transformation a
  match needed (:func:`~saga_kgqa.sources.key_match.loss`); a lossy step (local name, prefix,
  case) costs more than the whole names part can give, so a lossy match ranks below an exact
  one of equal containment. A transformation that only re-encodes (each side writes every key
  in one shape and no two of its keys meet under it, as ``"ID:1"`` against ``1``) loses
  nothing and costs little;
* ``second_batch`` (0.1): agreement of the containment measured on two disjoint halves of the sample;
* ``names`` (0.025): similarity of the two properties' names (``stadium_id`` ~ ``stadiumId``; a
  bare ``id`` borrows its class's name, so ``visit.visitor_id`` ~ ``visitor.id``).

Raw shared counts are not a part: small integer ids (1-10) collide across unrelated columns,
and a column with one more distinct value would otherwise outrank the real key. Names weighed
as much as containment once, and a numeric-code coincidence with similar names outranked the
true string-code join (docs/faults.md N10).
"""

from __future__ import annotations

import re
import zlib
from difflib import SequenceMatcher

from pydantic import BaseModel, ConfigDict

from saga_kgqa.sources.key_match import Normalisation, loss

WEIGHTS = {"containment": 0.55, "distinct": 0.2, "datatypes": 0.1, "second_batch": 0.1, "names": 0.025}
#: Shared keys below this count damp the containment (one shared value proves little).
SUPPORT = 3
_GENERIC = frozenset({"id", "ids", "key", "code", "no", "num", "number", "identifier", "uid"})
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


class ScoreParts(BaseModel):
    """The parts of a bridge candidate's score, each in [0, 1]."""

    model_config = ConfigDict(frozen=True)

    containment: float = 0.0
    distinct: float = 0.0
    names: float = 0.0
    datatypes: float = 0.0
    second_batch: float = 0.0

    @property
    def score(self) -> float:
        """The weighted sum of the parts."""
        return round(sum(float(getattr(self, name)) * weight for name, weight in WEIGHTS.items()), 3)

    def text(self) -> str:
        """``containment 1.00 · distinct 0.83 · …`` for the model."""
        return " · ".join(f"{name.replace('_', ' ')} {getattr(self, name):.2f}" for name in WEIGHTS)


def local_words(iri: str | None) -> list[str]:
    """The lower-cased words of an IRI's local name (``stadiumId`` and ``stadium_id`` give ``stadium id``)."""
    if not iri:
        return []
    local = re.split(r"[/#:]", iri.rstrip("/#"))[-1]
    return [word.lower() for word in _WORD.findall(local) if word.lower() != "ref"]


def name_words(prop: str | None, cls: str | None) -> set[str]:
    """A key's words: its property's, plus its class's when the property name is only generic (``id``)."""
    words = set(local_words(prop))
    if not words - _GENERIC:
        words |= set(local_words(cls))
    return words


def name_similarity(left: set[str], right: set[str]) -> float:
    """Word overlap of two keys' names, or their spelling similarity when that is higher."""
    if not left or not right:
        return 0.0
    overlap = len(left & right) / len(left | right)
    spelled = SequenceMatcher(None, "".join(sorted(left)), "".join(sorted(right))).ratio()
    return round(max(overlap, spelled * 0.8), 3)


def containment(shared: int, left: int, right: int) -> float:
    """Shared keys as a share of the smaller side, damped below :data:`SUPPORT` shared keys."""
    smaller = min(left, right)
    if smaller == 0 or shared == 0:
        return 0.0
    return round(min(shared / smaller, 1.0) * min(shared / SUPPORT, 1.0), 3)


def datatype_part(normalisation: Normalisation, *, reencoding: bool = False) -> float:
    """The datatype part of a transformation: 1 for ``exact``, less the lossier its steps (re-encodings lose little)."""
    return round(1.0 - loss(normalisation, reencoding=reencoding), 3)


def agreement(first: float, second: float) -> float:
    """How well two halves' containments agree (1: equal)."""
    return round(1.0 - abs(first - second), 3)


def hash_half(key: str) -> int:
    """Which of two stable halves of a sample a key falls in (the second batch)."""
    return zlib.crc32(key.encode("utf-8")) & 1

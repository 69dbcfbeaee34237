"""Paired comparison of two methods on the same questions: wins, losses and an exact sign test.

A difference of means can hang on a handful of questions. Over the questions where two methods
differ, the counts of wins and losses and the two-sided sign test (exact binomial, p = 1/2, ties
dropped) say how many questions a figure rests on and how likely so lopsided a split is by chance.
Written out in a few lines so benches need no statistics package.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import comb


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact sign test: P(a split at least this uneven) when each side wins with p = 1/2.

    Returns:
        1.0 when there is no differing question (nothing contradicts equality).
    """
    if wins < 0 or losses < 0:
        raise ValueError("wins and losses are counts")
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(wins, losses) + 1))
    return min(1.0, 2 * tail / 2**n)


@dataclass(frozen=True, slots=True)
class Paired:
    """How method A compares with method B question by question."""

    wins: int
    losses: int
    ties: int

    def __add__(self, other: Paired) -> Paired:
        return Paired(self.wins + other.wins, self.losses + other.losses, self.ties + other.ties)

    @property
    def p(self) -> float:
        """The two-sided sign-test p over the differing questions."""
        return sign_test(self.wins, self.losses)

    def field(self) -> str:
        """``W:L(p=P)`` for a RESULT field."""
        return f"{self.wins}:{self.losses}(p={self.p:.2g})"


def paired(a: Sequence[float], b: Sequence[float]) -> Paired:
    """Compare per-question scores of A and B (same questions, same order)."""
    wins = sum(x > y for x, y in zip(a, b, strict=True))
    losses = sum(x < y for x, y in zip(a, b, strict=True))
    return Paired(wins, losses, len(a) - wins - losses)

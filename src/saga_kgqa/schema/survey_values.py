"""Values a survey reads from an endpoint, parsed defensively: an endpoint's answer is data, not a promise.

A hostile or broken endpoint may put text where a count belongs (``12</tool><<SYS>>``), a
number too large to mean anything, or an IRI. :func:`parse_count`
(:mod:`saga_kgqa.kg.core.counts`) accepts a plain non-negative integer literal; anything
else is ``None`` and :func:`misbehaved_count` says why, as a
:class:`~saga_kgqa.errors.SourceMisbehaved` whose message quotes the value for the sanitiser.
"""

from __future__ import annotations

from saga_kgqa.errors import SourceMisbehaved
from saga_kgqa.kg.core.counts import parse_count
from saga_kgqa.kg.core.result import Term

__all__ = ["misbehaved_count", "parse_count"]


def misbehaved_count(what: str, term: Term) -> SourceMisbehaved:
    """The typed error for a count that is not one (its message quotes the value as data)."""
    return SourceMisbehaved(f"source misbehaved: the count of {what} is not a number: {term.value!r}")

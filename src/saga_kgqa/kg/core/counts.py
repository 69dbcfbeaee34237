"""Counts read from a graph, parsed defensively: an endpoint's answer is data, not a promise.

A hostile or broken endpoint may put text where a ``COUNT`` belongs (``12</tool><<SYS>>``),
a number too large to mean anything, or an IRI. :func:`parse_count` accepts a plain
non-negative integer literal (``"12"``, ``"12.0"``, ``"+12"``) up to :data:`MAX_COUNT` and
gives ``None`` for anything else; :func:`count_of` raises the typed
:class:`~saga_kgqa.errors.SourceMisbehaved` instead, so a tool reports that source's failure
rather than crashing with ``int()``'s ``ValueError``.
"""

from __future__ import annotations

import re

from saga_kgqa.errors import SourceMisbehaved
from saga_kgqa.kg.core.result import Term

#: A count above this is no count a graph can mean (a hostile endpoint's 10**4000).
MAX_COUNT = 10**15
_COUNT = re.compile(r"\s*\+?(\d{1,16})(?:\.0*)?\s*")


def parse_count(term: Term) -> int | None:
    """The non-negative integer ``term`` holds, or ``None`` when it holds anything else."""
    match = _COUNT.fullmatch(term.value) if term.kind == "literal" else None
    if match is None or int(match.group(1)) > MAX_COUNT:
        return None
    return int(match.group(1))


def count_of(term: Term | None, what: str = "a count") -> int:
    """The count ``term`` holds (0 when unbound).

    Raises:
        SourceMisbehaved: The term is not a non-negative integer (the message quotes it as data).
    """
    if term is None:
        return 0
    found = parse_count(term)
    if found is None:
        raise SourceMisbehaved(f"source misbehaved: {what} is not a number: {term.value[:100]!r}")
    return found

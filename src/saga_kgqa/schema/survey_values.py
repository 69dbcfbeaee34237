"""Values a survey reads from an endpoint, parsed defensively: an endpoint's answer is data, not a promise.

A hostile or broken endpoint may put text where a count belongs (``12</tool><<SYS>>``), a
number too large to mean anything, or an IRI. :func:`parse_count` accepts a plain
non-negative integer literal (``"12"``, ``"12.0"``, ``"+12"``) up to :data:`MAX_COUNT`;
anything else is ``None`` and :func:`misbehaved_count` says why, as a
:class:`~saga_kgqa.errors.SourceMisbehaved` whose message quotes the value for the sanitiser.
"""

from __future__ import annotations

import re

from saga_kgqa.errors import SourceMisbehaved
from saga_kgqa.kg.core.result import Term

#: A count above this is no count a survey can trust (a hostile endpoint's 10**4000).
MAX_COUNT = 10**15
_COUNT = re.compile(r"\s*\+?(\d{1,16})(?:\.0*)?\s*")


def parse_count(term: Term) -> int | None:
    """The non-negative integer ``term`` holds, or ``None`` when it holds anything else."""
    match = _COUNT.fullmatch(term.value) if term.kind == "literal" else None
    if match is None or int(match.group(1)) > MAX_COUNT:
        return None
    return int(match.group(1))


def misbehaved_count(what: str, term: Term) -> SourceMisbehaved:
    """The typed error for a count that is not one (its message quotes the value as data)."""
    return SourceMisbehaved(f"source misbehaved: the count of {what} is not a number: {term.value!r}")

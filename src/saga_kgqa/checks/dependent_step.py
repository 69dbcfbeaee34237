"""Is the answer taken from a step whose dependent step came back empty?

A run that looks up ids in one query and uses them in a second (another hop, another
source) can stop after the second returns nothing: the final query is then the first,
and its ids answer a question about something else ("which series …" answered with
channel ids). A later empty query that uses one of the answer's values depended on it.
"""

from __future__ import annotations

import re

from saga_kgqa.checks.models import CheckInput, Finding
from saga_kgqa.kg.core.result import Term

#: Values shorter than this are too common to prove a dependency (``1`` is in most queries).
_MIN_VALUE_CHARS = 2
_VALUES_READ = 200


def _mentions(query: str, term: Term) -> bool:
    value = term.value
    if len(value) < _MIN_VALUE_CHARS:
        return False
    if term.kind == "uri":
        return f"<{value}>" in query or _token(value.rstrip("/").rsplit("/", 1)[-1].rsplit("#", 1)[-1], query)
    return _token(value, query)


def _token(value: str, query: str) -> bool:
    """The value as a whole token (a number inside a longer number does not count)."""
    return re.search(rf"(?<![\w.]){re.escape(value)}(?![\w])", query) is not None


def check_dependent_step(item: CheckInput) -> list[Finding]:
    """A finding when a later query used the answer's values and came back empty."""
    if not item.later_empty or not item.rows:
        return []
    values = [term for row in list(item.rows)[:_VALUES_READ] for term in row.values() if term.kind != "bnode"]
    for step, query in item.later_empty:
        used = [t for t in values if _mentions(query, t)]
        if used:
            return [
                Finding(
                    "dependent_step",
                    f"the answer is this query's values ({used[0].value[:60]} …), but the query of step {step}, "
                    "which used them, came back empty: they may be the first hop's keys, not the answer; "
                    "finish the chain or say that it broke",
                )
            ]
    return []

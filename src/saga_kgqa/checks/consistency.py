"""Does the final query belong to this run: does it share any entity or predicate with the observations?"""

from __future__ import annotations

import re
from collections.abc import Mapping

from saga_kgqa.checks.models import CheckInput, Finding
from saga_kgqa.checks.query_iris import query_iris, seen_in

_STRING = re.compile(r"[\"']((?:[^\"'\\]|\\.)*)[\"']")


def check_consistency(item: CheckInput, prefixes: Mapping[str, str]) -> list[Finding]:
    """A finding when none of the query's IRIs appeared in the run (it may answer a different question)."""
    iris = query_iris(item.sparql, prefixes)
    texts = "\n".join(item.observations)
    if not iris or not item.observations or any(seen_in(i, texts, prefixes) for i in iris):
        return []
    # A name the run found (``?a ex:name "Jim Lovell"`` after searching for it) ties the query to the run too.
    folded = texts.casefold()
    if any(len(text) >= 3 and text.casefold() in folded for text in _STRING.findall(item.sparql)):
        return []
    return [
        Finding(
            "consistency",
            "the query shares no entity and no predicate with anything this run observed: "
            "does it answer this question?",
        )
    ]

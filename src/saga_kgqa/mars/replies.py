"""Reading the MARS replies: a SPARQL block, pattern numbers to expand, or CORRECT (tolerant of chatter)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCED = re.compile(r"```(?:sparql)?\s*\n?(.*?)```", re.DOTALL | re.IGNORECASE)
_SPARQL_LABEL = re.compile(r"SPARQL\s*:\s*(.+)", re.DOTALL | re.IGNORECASE)
_EXPAND = re.compile(r"EXPAND\s*:\s*([\d,\s\[\]]+)", re.IGNORECASE)
_CORRECT = re.compile(r"^\W*CORRECT\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Decision:
    """What the reasoner chose: a query, patterns to expand, or neither (``problem`` says why)."""

    sparql: str | None = None
    expand: tuple[int, ...] = ()
    problem: str | None = None


def read_decision(text: str) -> Decision:
    """Parse a reasoner reply; a query wins over an expansion when both appear."""
    sparql = read_sparql(text)
    if sparql:
        return Decision(sparql=sparql)
    match = _EXPAND.search(text)
    if match:
        numbers = tuple(dict.fromkeys(int(n) for n in re.findall(r"\d+", match.group(1))))
        if numbers:
            return Decision(expand=numbers)
    return Decision(problem="the reply had neither a SPARQL block nor EXPAND: <numbers>")


def read_sparql(text: str) -> str | None:
    """The query of a reply: a fenced block, else the text after ``SPARQL:``."""
    fenced = _FENCED.search(text)
    if fenced and fenced.group(1).strip():
        return fenced.group(1).strip()
    labelled = _SPARQL_LABEL.search(text)
    if labelled and labelled.group(1).strip():
        return labelled.group(1).strip()
    return None


def is_correct(text: str) -> bool:
    """Whether a verification reply accepts the query."""
    return bool(_CORRECT.search(text)) and read_sparql(text) is None

"""Does the query's form fit the question's: yes/no, negation, "how many", superlatives (the paper's E.6)."""

from __future__ import annotations

import re

from saga_kgqa.checks.models import CheckInput, Finding

_YES_NO = re.compile(r"^\s*(is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|am)\b", re.I)
#: Questions that ask for things, never yes or no (English, German, Spanish): an ASK cannot answer them.
_WH = re.compile(
    r"^\s*[¿¡]?\s*(what|which|who|whom|whose|where|when|how|list|give|name|show|"
    r"was|welche[rsnm]?|wer|wen|wem|wessen|wo|wann|wie|nenne|liste|"
    r"qu[eé]|cu[aá]l(?:es)?|qui[eé]n(?:es)?|d[oó]nde|cu[aá]ndo|cu[aá]nt[oa]s?|c[oó]mo|lista|nombra)\b",
    re.I,
)
_NEGATION = re.compile(r"\b(not|no|never|none|without|neither|nor)\b|n't\b", re.I)
_QUERY_NEGATION = re.compile(r"NOT\s+EXISTS|\bMINUS\b|!=|!\s*\(|!\s*BOUND|!\s*\?", re.I)
_HOW_MANY = re.compile(r"^\s*(how\s+many|how\s+much)\b|\bnumber\s+of\b|\bcount\s+of\b", re.I)
_STORED_NUMBER = re.compile(r"\b(live|lives|living|inhabitants|population|populated|residents|people\s+live)\b", re.I)
_COUNT = re.compile(r"\bCOUNT\s*\(", re.I)
_SUPERLATIVE = re.compile(
    r"\b(most|least|largest|smallest|biggest|highest|lowest|tallest|shortest|longest|oldest|youngest|"
    r"earliest|latest|first|last|greatest|fewest|best|worst|deepest|heaviest|richest|closest|nearest|"
    r"farthest|furthest|busiest|hottest|coldest|newest|fastest|slowest)\b",
    re.I,
)
_ORDERING = re.compile(r"\bORDER\s+BY\b|\bMAX\s*\(|\bMIN\s*\(", re.I)


def check_question_form(item: CheckInput) -> list[Finding]:
    """Findings on the form of the query against the form of the question."""
    found: list[Finding] = []
    form = item.form
    question = item.question
    if _YES_NO.search(question) and form == "SELECT" and not _HOW_MANY.search(question):
        found.append(
            Finding("question_form", "the question asks yes or no, but the query is a SELECT: an ASK answers it")
        )
    if form == "ASK" and _WH.search(question) and not _YES_NO.search(question):
        # Issue 25's answer shape: ASK only for yes/no. The query is never rewritten; the model is told.
        found.append(
            Finding(
                "question_form",
                "the question asks for values, not yes or no, but the query is an ASK: a SELECT answers it",
            )
        )
    if form == "ASK" and _NEGATION.search(question) and not _QUERY_NEGATION.search(item.sparql):
        found.append(
            Finding(
                "question_form",
                "the question is negated, but the ASK has no negation (FILTER NOT EXISTS, MINUS, !=): "
                "is the polarity kept?",
            )
        )
    if _HOW_MANY.search(question) and form == "SELECT":
        counted = bool(_COUNT.search(item.sparql))
        if not counted and len(item.rows) > 1:
            found.append(
                Finding(
                    "question_form",
                    f"the question asks how many, but the result is a list of {len(item.rows)} rows: "
                    "a COUNT answers it, or the number the graph stores",
                )
            )
        elif counted and _STORED_NUMBER.search(question):
            found.append(
                Finding(
                    "question_form",
                    "the question may ask for a number the graph stores (a population), but the query counts rows",
                )
            )
    superlative = _SUPERLATIVE.search(question)
    if superlative and form == "SELECT" and not _ORDERING.search(item.sparql) and len(item.rows) > 1:
        found.append(
            Finding(
                "question_form",
                f"the question has a superlative ({superlative.group(0)!r}), but the query "
                f"neither orders nor takes a MAX/MIN and returns {len(item.rows)} rows",
            )
        )
    return found

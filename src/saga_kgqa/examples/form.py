"""The structure of questions and queries that example retrieval compares beside the words.

Two questions about different entities can need the same query shape ("How many films did
Kubrick direct?" and "How many books did Orwell write?"), and two questions about the same
entity can need different ones ("Who directed Alien?" and "Is Alien longer than Aliens?").
Following DAIL-SQL, :func:`skeleton` masks a question's entity mentions so that its embedding
compares form and relation words; :func:`question_cues` reads which query features the wording
asks for (a count, a yes/no, a ranking, a comparison) in English, German and Spanish; and
:func:`query_features` reads the features a query has. :mod:`saga_kgqa.examples.index` prefers
examples whose query has the features the question's cues ask for.
"""

from __future__ import annotations

import functools
import itertools
import re

from saga_kgqa.kg.guard.limit_rewrite import first_keyword
from saga_kgqa.kg.guard.sparql_lexer import tokenize

#: The query features measured and compared.
FEATURES = ("COUNT", "ORDER BY", "FILTER", "ASK", "SUBQUERY", "GROUP BY", "LIMIT")

_HOW_MANY = re.compile(
    r"^\W*(how\s+many|how\s+much)\b|\bnumber\s+of\b|\bcount\s+(of|the)\b"
    r"|\bwie\s+viele?\b|\banzahl\b|\bcu[áa]nt[oa]s?\b|\bn[úu]mero\s+de\b",
    re.I,
)
_YES_NO = re.compile(
    r"^\W*(is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|am"
    r"|ist|sind|war|waren|hat|haben|hatte|gibt|kann|wird|wurde"
    r"|es|son|fue|fueron|est[áa]|hay|tiene|puede)\b",
    re.I,
)
_SUPERLATIVE = re.compile(
    r"\b(most|least|largest|smallest|biggest|highest|lowest|tallest|shortest|longest|oldest|youngest|"
    r"earliest|latest|first|last|greatest|fewest|best|worst|deepest|heaviest|richest|closest|nearest|"
    r"farthest|furthest|busiest|hottest|coldest|newest|fastest|slowest|top\s+\d+|"
    r"meisten|wenigsten|gr[öo](ß|ss)te[nrs]?|kleinste[nrs]?|h[öo]chste[nrs]?|niedrigste[nrs]?|"
    r"[äa]lteste[nrs]?|j[üu]ngste[nrs]?|erste[nrs]?|letzte[nrs]?|"
    r"mayor|menor|m[áa]s\s+(alto|alta|grande|largo|larga|antiguo|antigua|poblad[oa])|primer[oa]?|[úu]ltim[oa])\b",
    re.I,
)
_COMPARISON = re.compile(
    r"\b(more|less|fewer|greater|larger|smaller|higher|lower|older|younger|taller|shorter|longer|bigger)\s+than\b|"
    r"\b(before|after|between|since|until|above|below|over|under|exceeds?)\s+\d|"
    r"\b(starts?|begins?|ends?)\s+with\b|\bcontains?\b|"
    r"\b(mehr|weniger|gr[öo](ß|ss)er|kleiner|h[öo]her|[äa]lter|j[üu]nger)\s+als\b|\b(vor|nach|seit|zwischen)\s+\d|"
    r"\b(m[áa]s|menos)\s+(\w+\s+)?(de|que)\b|\b(antes|despu[ée]s)\s+de\s+\d",
    re.I,
)
#: A bound ("at least $80 million", "mindestens 80", "al menos 80"): a comparison, whatever follows it (a currency
#: sign, a number word), and never a superlative although it holds "least" or "most".
_BOUND = re.compile(
    r"\b(at\s+(least|most)|mindestens|h[öo]chstens|wenigstens|al\s+menos|por\s+lo\s+menos|como\s+(m[íi]nimo|m[áa]ximo))\b",
    re.I,
)
#: Capitalised words, numbers and quoted text: what a skeleton masks (one mask per run of them).
_MENTION = re.compile(r"\"[^\"]*\"|'[^']*'|„[^“]*“|«[^»]*»|\d[\d.,:/-]*|[A-ZÄÖÜÁÉÍÓÚÑ][\w'.-]*", re.UNICODE)
_MASK = "X"


@functools.lru_cache(maxsize=65_536)
def question_cues(question: str) -> frozenset[str]:
    """The query features the question's wording asks for (a subset of :data:`FEATURES`).

    "How many" asks for COUNT, a yes/no opening for ASK, a superlative for ORDER BY and LIMIT,
    a comparison ("more than", "before 1990") or a bound ("at least", "mindestens") for FILTER.
    """
    cues: set[str] = set()
    if _HOW_MANY.search(question):
        cues.add("COUNT")
    elif _YES_NO.search(question):
        cues.add("ASK")
    if _SUPERLATIVE.search(_BOUND.sub(" ", question)):
        cues.update(("ORDER BY", "LIMIT"))
    if _COMPARISON.search(question) or _BOUND.search(question):
        cues.add("FILTER")
    return frozenset(cues)


@functools.lru_cache(maxsize=65_536)
def skeleton(question: str) -> str:
    """The question with its entity mentions masked (capitalised words after the first, numbers, quotes).

    The first word keeps its case-based exemption because questions start with a capital;
    a run of masked words becomes one mask, so "Stanley Kubrick" and "Orwell" read alike.
    """
    words = question.split()
    if not words:
        return ""
    head, rest = words[0], " ".join(words[1:])
    masked = _MENTION.sub(_MASK, rest)
    out = [head]
    for word in masked.split():
        core = word.strip(",.;:!?¿¡()")
        if core == _MASK and out[-1].strip(",.;:!?¿¡()") == _MASK:
            continue
        out.append(word)
    return " ".join(out)


@functools.lru_cache(maxsize=65_536)
def query_features(sparql: str) -> frozenset[str]:
    """The features of :data:`FEATURES` a query has (lexical: no parse; empty when it does not tokenise)."""
    try:
        tokens = tokenize(sparql)
    except Exception:
        return frozenset()
    words = [t.text.upper() for t in tokens if t.kind == "word"]
    found = set()
    keyword = first_keyword(tokens)
    if keyword is not None and keyword.text.upper() == "ASK":
        found.add("ASK")
    for name in ("COUNT", "FILTER", "LIMIT"):
        if name in words:
            found.add(name)
    pairs = set(itertools.pairwise(words))
    if ("ORDER", "BY") in pairs:
        found.add("ORDER BY")
    if ("GROUP", "BY") in pairs:
        found.add("GROUP BY")
    if any(t.kind == "word" and t.text.upper() == "SELECT" and t.brace_depth > 0 for t in tokens):
        found.add("SUBQUERY")
    return frozenset(found)

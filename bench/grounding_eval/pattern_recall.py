"""Gold patterns of a reference query, and pattern recall@N of rankings (``bench/patterns.py``).

A gold query's *gold patterns* are the ``(entity, property, direction)`` triples a pattern
retriever must offer for the query to be writable: a constant subject gives an outgoing
pattern, a constant IRI object an incoming one. Spider4SPARQL's constants are mostly
literals (``?x :name "Jim"``); they are resolved to the entities that carry them, the way
linking the question's names would find them, and every use of the variable they bind then
becomes a pattern of those entities. Type predicates are not patterns (lookup shows types apart).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rdflib.term import Literal
from rdflib.util import from_n3

from bench.grounding_eval.gold_patterns import property_uses
from saga_kgqa.errors import QueryTimeout, SagaError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.tools.patterns.model import Direction, Pattern
from saga_kgqa.tools.patterns.ranking import Ranking

GoldKey = tuple[str, str, Direction]
CUTOFFS: tuple[int, ...] = (5, 10, 20)
_RESOLVED_PER_LITERAL = 3
# Spider4SPARQL writes its constants as FILTER(?v = 'Captured') rather than in the triple.
_FILTER_EQUALS = re.compile(
    r"FILTER\s*\(\s*\?(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|-?\d+(?:\.\d+)?)\s*\)", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class GoldPatterns:
    """The gold patterns of one question and the entities they start from."""

    qid: str
    question: str
    keys: frozenset[GoldKey]

    @property
    def entities(self) -> list[str]:
        """The entities to retrieve patterns for, sorted."""
        return sorted({key[0] for key in self.keys})


def gold_patterns(
    qid: str, question: str, sparql: str, graph: KnowledgeGraph, prefixes: Mapping[str, str] | None = None
) -> GoldPatterns:
    """The gold patterns of one reference query (literal constants resolved on ``graph``).

    Raises:
        QueryRejected: The text is not a SPARQL query.
    """
    uses = property_uses(sparql, prefixes=prefixes)
    filtered = {f"?{name}": value for name, value in _FILTER_EQUALS.findall(sparql)}
    keys: set[GoldKey] = set()
    bound: dict[str, set[str]] = {}
    for use in uses:
        if not use.subject_is_variable:
            keys.add((use.subject, use.property_iri, "out"))
        obj = filtered.get(use.object, use.object)
        if obj.startswith("<") and obj.endswith(">"):
            keys.add((obj[1:-1], use.property_iri, "in"))
        elif use.subject_is_variable and not obj.startswith("?"):
            bound.setdefault(use.subject, set()).update(_carriers(graph, use.property_iri, obj))
    for use in uses:
        for entity in bound.get(use.subject, ()):
            keys.add((entity, use.property_iri, "out"))
        for entity in bound.get(use.object, ()):
            keys.add((entity, use.property_iri, "in"))
    return GoldPatterns(qid, question, frozenset(keys))


def _carriers(graph: KnowledgeGraph, property_iri: str, literal: str) -> list[str]:
    """The entities having ``property_iri`` with a value equal to the literal (a few)."""
    try:
        term = from_n3(literal.replace("'", '"') if literal.startswith("'") else literal)
    except Exception:
        return []
    if not isinstance(term, Literal):
        return []
    text = (
        f"SELECT DISTINCT ?e WHERE {{ ?e <{property_iri}> ?v FILTER(isIRI(?e) && ?v = {term.n3()}) }} "
        f"LIMIT {_RESOLVED_PER_LITERAL}"
    )
    try:
        result = graph.query(text, ExecutionLimits(deadline_s=10.0, max_rows=_RESOLVED_PER_LITERAL))
    except (QueryTimeout, SagaError):
        return []
    return [row["e"].value for row in result.rows if "e" in row]


@dataclass(slots=True)
class RecallTally:
    """Gold patterns found within the top N, per ranking and cutoff.

    Attributes:
        gold: Gold patterns counted.
        retrievable: Those the retriever offered at all (recall's ceiling).
        found: ``ranking → cutoff → gold patterns within the top N``.
        questions: Questions with at least one gold pattern.
        pool_sizes: Patterns per question before the cut.
    """

    gold: int = 0
    retrievable: int = 0
    found: dict[str, dict[int, int]] = field(default_factory=dict)
    questions: int = 0
    pool_sizes: list[int] = field(default_factory=list)

    def add(self, gold: GoldPatterns, patterns: Sequence[Pattern], rankings: Sequence[Ranking]) -> None:
        """Rank one question's patterns with every ranking and count the gold ones in each top N."""
        if not gold.keys:
            return
        self.questions += 1
        self.gold += len(gold.keys)
        offered = {pattern.key for pattern in patterns}
        self.retrievable += len(gold.keys & offered)
        self.pool_sizes.append(len(patterns))
        for ranking in rankings:
            ordered = [pattern.key for pattern in ranking.rank(gold.question, patterns)]
            per = self.found.setdefault(ranking.name, dict.fromkeys(CUTOFFS, 0))
            for cutoff in CUTOFFS:
                per[cutoff] += len(gold.keys & set(ordered[:cutoff]))

    def recall(self, ranking: str, cutoff: int) -> float | None:
        """Share of gold patterns within the top ``cutoff`` of ``ranking``."""
        if not self.gold or ranking not in self.found:
            return None
        return self.found[ranking][cutoff] / self.gold

    def merge(self, other: RecallTally) -> None:
        """Add another tally's counts."""
        self.gold += other.gold
        self.retrievable += other.retrievable
        self.questions += other.questions
        self.pool_sizes.extend(other.pool_sizes)
        for name, per in other.found.items():
            mine = self.found.setdefault(name, dict.fromkeys(CUTOFFS, 0))
            for cutoff, value in per.items():
                mine[cutoff] += value

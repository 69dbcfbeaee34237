"""Which gold patterns of Wikidata questions the offline store can rank fairly (``bench/patterns.py``).

The offline store (:mod:`saga_kgqa.dialects.wikidata_store`) holds two kinds of neighbourhood:

* CoDEx-M's: every training and validation triple of its 17,050 entities over its 51
  relations, so for those relations an entity's patterns are all there (less the held-out
  test triples, which the store never loads);
* SPINACH's recorded lookups: pruned to the ~2.5 properties the agent looked at, so a
  ranking among them says nothing.

A gold ``(entity, property, direction)`` pattern qualifies when its entity is a CoDEx-M
entity of the loaded splits, its property a CoDEx-M relation, and the store holds at least
one triple of it (an ``ASK``). ``p:``/``ps:`` statement forms count as the direct ``wdt:``
property they stand for; type predicates (``wdt:P31``) are not gold patterns, as on the other
graphs. The patterns ranked for a question are then everything the retriever reads around
its qualifying entities (CoDEx relations, types and any recorded statements): a smaller pool
than live Wikidata's, where an item also carries labels in other languages and external ids.

Real questions, not CoDEx test triples with a templated question: a template ("What is the
director of X?") names the property, which hands lexical rankings the answer.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.grounding_eval.pattern_recall import GoldKey, GoldPatterns, gold_patterns
from saga_kgqa.benchmarks.loaders import load_benchmark
from saga_kgqa.dialects.model import WIKIDATA_DIRECT, WIKIDATA_ENTITY
from saga_kgqa.dialects.wikidata_store import CODEX_SPLITS, PS, P
from saga_kgqa.errors import QueryTimeout, SagaError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema.wikidata_sources import read_triples

#: Wikidata benchmarks whose gold queries are searched (all splits: nothing is trained here).
WIKIDATA_PATTERN_BENCHMARKS: tuple[str, ...] = (
    "qald10",
    "qald7-test",
    "qald7-train",
    "qald9plus-test",
    "qald9plus-train",
    "wwq-dev",
    "wwq-train",
    "wwq-test",
    "spinach-dev",
    "spinach-test",
)
_TYPE_PREDICATES = frozenset({WIKIDATA_DIRECT + "P31"})


@dataclass(frozen=True, slots=True)
class CodexNeighbourhoods:
    """The entities and relations whose neighbourhood the offline store holds in full.

    Attributes:
        entities: CoDEx-M entity IRIs of the loaded splits (heads and tails).
        relations: CoDEx-M relation IRIs (``wdt:P…``).
    """

    entities: frozenset[str]
    relations: frozenset[str]

    @classmethod
    def read(cls, data_dir: Path) -> CodexNeighbourhoods:
        """Read CoDEx-M's loaded splits (training and validation) from the data directory.

        Raises:
            ConfigurationError: A CoDEx file is missing or malformed.
        """
        splits = [s for s in CODEX_SPLITS if s.startswith("codex-m/")]
        entities: set[str] = set()
        relations: set[str] = set()
        for head, pid, tail in read_triples(data_dir / "codex" / "triples" / f"{s}.txt.gz" for s in splits):
            entities.update((WIKIDATA_ENTITY + head, WIKIDATA_ENTITY + tail))
            relations.add(WIKIDATA_DIRECT + pid)
        return cls(frozenset(entities), frozenset(relations))


def direct_property(prop: str) -> str:
    """The direct ``wdt:`` property a ``p:`` or ``ps:`` predicate stands for; others unchanged."""
    for namespace in (PS, P):
        local = prop.removeprefix(namespace)
        if local != prop and "/" not in local:
            return WIKIDATA_DIRECT + local
    return prop


def qualifying_patterns(gold: GoldPatterns, graph: KnowledgeGraph, codex: CodexNeighbourhoods) -> GoldPatterns:
    """The gold patterns of one question that the store holds within a full CoDEx-M neighbourhood."""
    keys: set[GoldKey] = set()
    for entity, prop, direction in gold.keys:
        direct = direct_property(prop)
        if entity not in codex.entities or direct not in codex.relations or direct in _TYPE_PREDICATES:
            continue
        if _held((entity, direct, direction), graph):
            keys.add((entity, direct, direction))
    return GoldPatterns(gold.qid, gold.question, frozenset(keys))


def _held(key: GoldKey, graph: KnowledgeGraph) -> bool:
    entity, prop, direction = key
    triple = f"{iri(entity)} {iri(prop)} ?o" if direction == "out" else f"?s {iri(prop)} {iri(entity)}"
    try:
        return graph.query(f"ASK {{ {triple} }}", ExecutionLimits(deadline_s=10.0)).boolean is True
    except (QueryTimeout, SagaError):
        return False


def select_questions(
    questions: Iterable[tuple[str, str, str]],
    graph: KnowledgeGraph,
    codex: CodexNeighbourhoods,
    *,
    size: int,
    seed: int,
) -> list[GoldPatterns]:
    """A seeded sample of at most ``size`` questions with at least one qualifying gold pattern.

    Args:
        questions: ``(id, question, gold SPARQL)``; a question text seen before is skipped
            (QALD-7, QALD-9-plus and SPINACH repeat questions).
        graph: The offline store.
        codex: What the store holds in full.
        size: Most questions kept.
        seed: Seed of the sample.

    Returns:
        The sampled questions, each with its qualifying gold patterns only, in id order.
    """
    found: list[GoldPatterns] = []
    seen: set[str] = set()
    prefixes = dict(graph.profile.prefixes)
    for qid, question, sparql in questions:
        text = " ".join(question.lower().split())
        if text in seen:
            continue
        seen.add(text)
        try:
            gold = gold_patterns(qid, question, sparql, graph, prefixes)
        except SagaError:
            continue  # a gold query the parser rejects has no patterns to rank
        kept = qualifying_patterns(gold, graph, codex)
        if kept.keys:
            found.append(kept)
    rng = random.Random(seed)
    return sorted(rng.sample(found, min(size, len(found))), key=lambda g: g.qid)


def wikidata_questions(
    data_dir: Path, benchmarks: Iterable[str] = WIKIDATA_PATTERN_BENCHMARKS
) -> Iterator[tuple[str, str, str]]:
    """``(id, question, gold SPARQL)`` of the Wikidata benchmarks' English questions with a gold query."""
    for name in benchmarks:
        for question in load_benchmark(name, data_dir).questions:
            if question.gold_sparql:
                yield question.id, question.question, question.gold_sparql

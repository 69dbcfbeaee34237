"""bench/examples.py's measure: the per-question tally of what the top-k examples show, and the pools."""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from saga_kgqa.benchmarks.questions import BenchmarkQuestion

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: bench.grounding_eval
from bench.grounding_eval.tokens import count_tokens
from saga_kgqa.examples.coverage import Signature, covered, local_names, signature
from saga_kgqa.examples.index import (
    BM25_STRUCTURE,
    EMBEDDING_STRUCTURE,
    WORDS_ONLY,
    ExampleIndex,
    ExampleRanking,
    StructureWeights,
    render_examples,
)
from saga_kgqa.examples.leakage import LeakageGuard
from saga_kgqa.examples.model import QueryExample

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings


#: The query features issue 25 names for its measure ("COUNT, ORDER BY, FILTER, ASK, subquery"); the bench's
#: ``features`` column counts all seven of :data:`~saga_kgqa.examples.form.FEATURES` (GROUP BY and LIMIT too).
ISSUE_FEATURES = frozenset({"COUNT", "ORDER BY", "FILTER", "ASK", "SUBQUERY"})

#: (column, ranking, structure weights): the product's two rankings, the floor, the words-only ablations.
Variant = tuple[str, ExampleRanking, StructureWeights]
VARIANTS: tuple[Variant, ...] = (
    ("embedding", "embedding", EMBEDDING_STRUCTURE),
    ("bm25", "bm25", BM25_STRUCTURE),
    ("random", "random", WORDS_ONLY),
    ("emb-words", "embedding", WORDS_ONLY),
    ("bm25-words", "bm25", WORDS_ONLY),
)


@dataclass
class Tally:
    """Per-question coverages of one ranking on one pair."""

    properties: list[float] = field(default_factory=list)
    properties_local: list[float] = field(default_factory=list)
    classes: list[float] = field(default_factory=list)
    features: list[float] = field(default_factory=list)
    issue_features: list[float] = field(default_factory=list)
    extra: list[float] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)

    def add(self, gold: Signature, shown: Sequence[QueryExample], *, tokens: bool = True) -> None:
        """Score one question's top-k."""
        seen = [signature(e.sparql) for e in shown]
        for values, needed, got in (
            (self.properties, gold.properties, [s.properties for s in seen]),
            (self.properties_local, local_names(gold.properties), [local_names(s.properties) for s in seen]),
            (self.classes, gold.classes, [s.classes for s in seen]),
            (self.features, gold.features, [s.features for s in seen]),
            (self.issue_features, gold.features & ISSUE_FEATURES, [s.features & ISSUE_FEATURES for s in seen]),
        ):
            share = covered(needed, got)
            if share is not None:
                values.append(share)
        shown_features = frozenset().union(*(s.features for s in seen))
        if shown_features:
            self.extra.append(len(shown_features - gold.features) / len(shown_features))
        if tokens:
            self.tokens.extend(count_tokens(render_examples([e])) for e in shown)


class _QueryCache:
    """The bench's embedder: vectors kept by text (every variant and tuning setting embeds the same texts)."""

    def __init__(self, inner: Embeddings) -> None:
        self._inner = inner
        self._queries: dict[str, list[float]] = {}
        self._documents: dict[str, list[float]] = {}
        self._symmetric: dict[str, list[float]] = {}

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        missing = list(dict.fromkeys(t for t in texts if t not in self._documents))
        if missing:
            self._documents.update(zip(missing, self._inner.embed_documents(missing), strict=True))
        return [self._documents[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        if text not in self._queries:
            self._queries[text] = self._inner.embed_query(text)
        return self._queries[text]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Texts compared with each other (the index's examples): the model's query side (faults AG1)."""
        from saga_kgqa.tools.patterns.embeddings import embed_symmetric

        missing = list(dict.fromkeys(t for t in texts if t not in self._symmetric))
        if missing:
            self._symmetric.update(zip(missing, embed_symmetric(self._inner, missing), strict=True))
        return [self._symmetric[t] for t in texts]


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


Pool = Callable[[BenchmarkQuestion], Sequence[QueryExample]]


def _measure(
    name: str,
    questions: Sequence[BenchmarkQuestion],
    pool: Pool,
    k: int,
    embeddings: object,
    variants: Sequence[Variant] = VARIANTS,
    *,
    quiet: bool = False,
    by_local_name: bool = False,
) -> dict[str, Tally]:
    tallies: dict[str, Tally] = {label: Tally() for label, _r, _w in variants}
    indexes: dict[tuple[tuple[tuple[str, str], ...], str], ExampleIndex] = {}
    for question in questions:
        if not question.gold_sparql:
            continue
        gold = signature(question.gold_sparql)
        examples = pool(question)
        # One index per distinct pool, keyed by what it holds: a leave-one-out pool is a new list per
        # question, and an id() key let a freed list's address, reused by a later question's pool, hand that
        # question the earlier pool's index (its own paraphrases in it: faults AF1).
        content = tuple((e.question, e.sparql) for e in examples)
        for label, ranking, weights in variants:
            key = (content, label)
            if key not in indexes:
                indexes[key] = ExampleIndex(
                    examples,
                    ranking=ranking,
                    embeddings=embeddings,  # type: ignore[arg-type]
                    structure=weights,
                )
            tallies[label].add(gold, indexes[key].examples_for(question.question, k), tokens=not quiet)
        if len(indexes) > 4 * len(variants) * 4:
            indexes.clear()  # leave-one-out pools are per question: keep memory flat
    if not quiet:
        figures = " ".join(
            f"{label}: P={_mean(t.properties):.3f}"
            + (f" L={_mean(t.properties_local):.3f}" if by_local_name else "")
            + f" C={_mean(t.classes):.3f} F={_mean(t.features):.3f} F5={_mean(t.issue_features):.3f}"
            + f" X={_mean(t.extra):.2f}"
            for label, t in tallies.items()
        )
        print(f"{name:<34} n={len(questions):<5} {figures}", flush=True)
    return tallies


def _fixed(pool: list[QueryExample]) -> Pool:
    """The same pool for every question (a train split against a test split)."""

    def same(_question: BenchmarkQuestion) -> list[QueryExample]:
        return pool

    return same


def _screened(train: list[QueryExample], test: Sequence[BenchmarkQuestion], name: str) -> list[QueryExample]:
    report = LeakageGuard(test).screen(train)
    if report.refused:
        print(f"  {name}: leakage guard refused {len(report.refused)} of {len(train)} train examples")
    return report.kept


def _leave_one_out(pool: list[QueryExample]) -> Pool:
    def without(question: BenchmarkQuestion) -> list[QueryExample]:
        return LeakageGuard([question]).screen(pool).kept

    return without

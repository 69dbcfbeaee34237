"""Ordering patterns for a question: embedding similarity, BM25, degree, or a seeded shuffle.

A ranking returns every pattern, best first; callers keep the top N. Embedding scores are
compared only with each other (e5's are compressed into 0.76 to 0.99), never with a fixed
threshold. BM25 (``bm25s``) is the fallback when no embedding model is configured; degree
order is what a plain lookup would show; random is the floor.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, Protocol

from saga_kgqa.tools.patterns.model import Pattern

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

RankingName = Literal["embedding", "bm25", "degree", "random"]


class Ranking(Protocol):
    """Orders patterns for a question."""

    name: str

    def rank(self, question: str, patterns: Sequence[Pattern]) -> list[Pattern]:
        """Every pattern, most relevant to ``question`` first."""
        ...


def _degree_key(pattern: Pattern) -> tuple[int, int, str, str]:
    return (-pattern.count, 0 if pattern.direction == "out" else 1, pattern.property_label, pattern.entity)


class DegreeRanking:
    """Most frequent property first (what a lookup lists first), outgoing before incoming."""

    name = "degree"

    def rank(self, question: str, patterns: Sequence[Pattern]) -> list[Pattern]:
        """Order by count, descending."""
        return sorted(patterns, key=_degree_key)


class RandomRanking:
    """A shuffle seeded by the seed and the question (the same question always gets the same order)."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        """Set the seed."""
        self._seed = seed

    def rank(self, question: str, patterns: Sequence[Pattern]) -> list[Pattern]:
        """Shuffle deterministically."""
        digest = hashlib.sha256(f"{self._seed}\0{question}".encode()).digest()
        ordered = sorted(patterns, key=_degree_key)
        random.Random(digest).shuffle(ordered)  # noqa: S311 - a reproducible baseline, not a secret
        return ordered


class BM25Ranking:
    """Okapi BM25 (``bm25s``) of the question against the verbalised patterns, English stopwords removed."""

    name = "bm25"

    def rank(self, question: str, patterns: Sequence[Pattern]) -> list[Pattern]:
        """Order by BM25 score; ties (and patterns sharing no word) keep degree order."""
        ordered = sorted(patterns, key=_degree_key)
        if not ordered:
            return []
        import bm25s

        corpus = [_lexical_text(pattern) for pattern in ordered]
        tokens = bm25s.tokenize(corpus, stopwords="en", show_progress=False, return_ids=False)
        retriever = bm25s.BM25()
        retriever.index(tokens, show_progress=False)
        query = bm25s.tokenize([question], stopwords="en", show_progress=False, return_ids=False)[0]
        scores = retriever.get_scores(query) if query else [0.0] * len(ordered)
        positions = sorted(range(len(ordered)), key=lambda i: (-float(scores[i]), i))
        return [ordered[i] for i in positions]


def _lexical_text(pattern: Pattern) -> str:
    # The entity label is shared by all of one entity's patterns; the property's words decide.
    return f"{pattern.property_label} {pattern.entity_label}"


class EmbeddingRanking:
    """Cosine similarity of the question and each verbalised pattern, through any LangChain ``Embeddings``."""

    name = "embedding"

    def __init__(self, embeddings: Embeddings, *, name: str = "embedding") -> None:
        """Hold the embedder (wrap it in :class:`~.embeddings.CachedEmbeddings` to reuse vectors)."""
        self._embeddings = embeddings
        self.name = name

    def scores(self, question: str, patterns: Sequence[Pattern]) -> list[float]:
        """The similarity of each pattern to the question, in the given order."""
        import numpy as np

        if not patterns:
            return []
        texts = [pattern.embedding_text() for pattern in patterns]
        documents = np.asarray(self._embeddings.embed_documents(texts), dtype=np.float32)
        query = np.asarray(self._embeddings.embed_query(question), dtype=np.float32)
        norms = np.linalg.norm(documents, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
        return [float(value) for value in (documents @ query) / np.maximum(norms, 1e-12)]

    def rank(self, question: str, patterns: Sequence[Pattern]) -> list[Pattern]:
        """Order by similarity; ties keep degree order."""
        ordered = sorted(patterns, key=_degree_key)
        scores = self.scores(question, ordered)
        positions = sorted(range(len(ordered)), key=lambda i: (-scores[i], i))
        return [ordered[i] for i in positions]


def build_ranking(name: RankingName, *, embeddings: Embeddings | None = None, seed: int = 0) -> Ranking:
    """The ranking called ``name``; ``embedding`` without a model falls back to BM25."""
    if name == "embedding":
        return EmbeddingRanking(embeddings) if embeddings is not None else BM25Ranking()
    if name == "bm25":
        return BM25Ranking()
    if name == "degree":
        return DegreeRanking()
    return RandomRanking(seed)

"""Nearest examples for a question: embedding similarity (the patterns room's runtime), BM25, or random.

:meth:`ExampleIndex.examples_for` returns the top ``k`` examples, deduplicated by normalised
query (an endpoint often publishes one query under several phrasings), and never the
question itself (a leave-one-out over a graph's own examples). Embedding scores are compared
only with each other; BM25 is the fallback when no embedding model is configured; random is
the floor a bench compares both with.
"""

from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from saga_kgqa.examples.model import QueryExample
from saga_kgqa.examples.normalise import normalise_query, normalise_question

if TYPE_CHECKING:
    import numpy as np
    from langchain_core.embeddings import Embeddings

ExampleRanking = Literal["embedding", "bm25", "random"]


class ExampleIndex:
    """A source's examples, searchable by question."""

    def __init__(
        self,
        examples: Sequence[QueryExample],
        *,
        ranking: ExampleRanking = "embedding",
        embeddings: Embeddings | None = None,
        seed: int = 0,
    ) -> None:
        """Hold the examples; ``embedding`` without a model falls back to BM25.

        Args:
            examples: The pairs (already screened by the leakage guard when a benchmark is evaluated).
            ranking: How questions are compared.
            embeddings: The embedder (:func:`saga_kgqa.tools.patterns.embeddings.build_embeddings`).
            seed: Seed of the random ranking.
        """
        self.examples = list(examples)
        self.ranking: ExampleRanking = "bm25" if ranking == "embedding" and embeddings is None else ranking
        self._embeddings = embeddings
        self._seed = seed
        self._questions = [normalise_question(e.question) for e in self.examples]
        self._queries = [normalise_query(e.sparql) for e in self.examples]
        self._lock = threading.Lock()
        self._matrix: np.ndarray | None = None
        self._bm25: Any = None

    def __len__(self) -> int:
        return len(self.examples)

    def examples_for(self, question: str, k: int) -> list[QueryExample]:
        """The ``k`` nearest examples, best first: one per distinct query, never ``question`` itself."""
        if k <= 0 or not self.examples:
            return []
        own = normalise_question(question)
        chosen: list[QueryExample] = []
        seen: set[str] = set()
        for position in self._order(question):
            if self._questions[position] == own or self._queries[position] in seen:
                continue
            seen.add(self._queries[position])
            chosen.append(self.examples[position])
            if len(chosen) == k:
                break
        return chosen

    def _order(self, question: str) -> list[int]:
        positions = list(range(len(self.examples)))
        if self.ranking == "random":
            digest = hashlib.sha256(f"{self._seed}\0{question}".encode()).digest()
            random.Random(digest).shuffle(positions)  # noqa: S311 - a reproducible baseline, not a secret
            return positions
        scores = self._embedding_scores(question) if self.ranking == "embedding" else self._bm25_scores(question)
        return sorted(positions, key=lambda i: (-scores[i], i))

    def _embedding_scores(self, question: str) -> list[float]:
        import numpy as np

        assert self._embeddings is not None
        with self._lock:
            if self._matrix is None:
                vectors = np.asarray(
                    self._embeddings.embed_documents([e.question for e in self.examples]), dtype=np.float32
                )
                norms = np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
                self._matrix = vectors / norms
            matrix = self._matrix
        query = np.asarray(self._embeddings.embed_query(question), dtype=np.float32)
        query /= max(float(np.linalg.norm(query)), 1e-12)
        return [float(v) for v in matrix @ query]

    def _bm25_scores(self, question: str) -> list[float]:
        import bm25s

        with self._lock:
            if self._bm25 is None:
                retriever = bm25s.BM25()
                corpus = bm25s.tokenize(self._questions, stopwords="en", show_progress=False, return_ids=False)
                retriever.index(corpus, show_progress=False)
                self._bm25 = retriever
            retriever = self._bm25
        tokens = bm25s.tokenize([normalise_question(question)], stopwords="en", show_progress=False, return_ids=False)
        if not tokens or not tokens[0]:
            return [0.0] * len(self.examples)
        return [float(v) for v in retriever.get_scores(tokens[0])]


def render_examples(examples: Sequence[QueryExample], *, max_query_chars: int = 1_500) -> str:
    """The examples as prompt text: one question and its query per block (the query capped)."""
    blocks = []
    for number, example in enumerate(examples, start=1):
        query = example.sparql if len(example.sparql) <= max_query_chars else example.sparql[:max_query_chars] + " …"
        blocks.append(f"Example {number}. Question: {example.question}\nSPARQL:\n{query}")
    return "\n\n".join(blocks)

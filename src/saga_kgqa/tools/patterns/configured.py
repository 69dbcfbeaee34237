"""The ranking a run's context asks for, with embedders built once per process (so their cache is shared)."""

from __future__ import annotations

import importlib.util
import os
import threading
from typing import TYPE_CHECKING

from saga_kgqa.config.context import SagaContext
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.tools.patterns.ranking import Ranking, build_ranking

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

_EMBEDDERS: dict[tuple[str, str | None, str], Embeddings] = {}
_LOCK = threading.Lock()


def configured_ranking(context: SagaContext) -> Ranking:
    """The context's ``pattern_ranking``; ``embedding`` uses ``embedding_runtime`` (cached per process)."""
    if context.pattern_ranking != "embedding":
        return build_ranking(context.pattern_ranking)
    from saga_kgqa.tools.patterns.embeddings import build_embeddings

    # A served run's context never carries the server (the caller rule): the operator's environment does.
    base_url = context.embedding_base_url or os.environ.get("SAGA_EMBEDDING_BASE_URL") or None
    model = context.embedding_model or os.environ.get("SAGA_EMBEDDING_MODEL", "")
    key = (context.embedding_runtime, base_url, model)
    with _LOCK:
        if key not in _EMBEDDERS:
            _EMBEDDERS[key] = build_embeddings(context.embedding_runtime, base_url=base_url, model=model)
        embeddings = _EMBEDDERS[key]
    return build_ranking("embedding", embeddings=embeddings)


def ranking_unavailable(context: SagaContext) -> str | None:
    """Why the context's ranking cannot run in this install (a package missing), or None when it can.

    Checked without loading anything, so a face lists a patterns tool only where it can answer: an
    install without the ``patterns`` extra has neither the in-process embedders nor BM25.
    """
    if context.pattern_ranking == "bm25" and importlib.util.find_spec("bm25s") is None:
        return "bm25s is not installed; install the extra: pip install 'saga-kgqa[patterns]'"
    if context.pattern_ranking != "embedding":
        return None
    from saga_kgqa.tools.patterns.embeddings import require_installed

    try:
        require_installed(context.embedding_runtime)
    except ConfigurationError as exc:
        return str(exc)
    return None

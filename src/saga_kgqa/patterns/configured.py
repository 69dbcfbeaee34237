"""The ranking a run's context asks for, with embedders built once per process (so their cache is shared)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from saga_kgqa.context import SagaContext
from saga_kgqa.patterns.ranking import Ranking, build_ranking

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

_EMBEDDERS: dict[tuple[str, str | None, str], Embeddings] = {}
_LOCK = threading.Lock()


def configured_ranking(context: SagaContext) -> Ranking:
    """The context's ``pattern_ranking``; ``embedding`` uses ``embedding_runtime`` (cached per process)."""
    if context.pattern_ranking != "embedding":
        return build_ranking(context.pattern_ranking)
    from saga_kgqa.patterns.embeddings import build_embeddings

    key = (context.embedding_runtime, context.embedding_base_url, context.embedding_model)
    with _LOCK:
        if key not in _EMBEDDERS:
            _EMBEDDERS[key] = build_embeddings(
                context.embedding_runtime, base_url=context.embedding_base_url, model=context.embedding_model
            )
        embeddings = _EMBEDDERS[key]
    return build_ranking("embedding", embeddings=embeddings)

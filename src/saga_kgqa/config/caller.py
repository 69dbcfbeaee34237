"""The rule for runs whose context comes from a caller: infrastructure only by name, budgets within limits.

A caller of the HTTP API, an MCP host or a TEXT2SPARQL campaign sends a run context. It may
set every switch and budget of :class:`~saga_kgqa.config.context.SagaContext` (within the
operator's :class:`~saga_kgqa.config.catalog.Limits`) and may *name* a source and a model
of the operator's catalog; it may never give a URL, a path or a key. Were it allowed to, a
posted ``base_url`` would receive the operator's API key, and ``endpoint``/``data`` would turn
the server into a proxy to any host or file.
"""

from __future__ import annotations

import dataclasses

from saga_kgqa.config.catalog import Catalog, ModelRecord, SourceRecord, UnknownName
from saga_kgqa.config.context import SagaContext
from saga_kgqa.errors import ConfigurationError

#: Context fields that choose infrastructure; a caller leaves them unset and names a source or model instead.
INFRASTRUCTURE_FIELDS = (
    "base_url",
    "data",
    "endpoint",
    "profile",
    "schema_index",
    "entity_search",
    "dialect",
    # The embeddings server of pattern ranking is the operator's (SAGA_EMBEDDING_BASE_URL), like the chat model's.
    "embedding_base_url",
    "embedding_model",
    # A file path: the operator's examples, never one a caller names.
    "examples_file",
)


class CallerContextRefused(ConfigurationError, ValueError):
    """A caller's run context tried to choose infrastructure directly, or asked for more than the operator allows.

    Also a :class:`ValueError`: the LangGraph API passes the message of a ``ValueError`` to its caller
    (``langgraph_sdk`` raises ``CallerContextRefused: <reason>``) and hides any other as "internal error".
    The message names only the field and the operator's limit, never a path or URL of the operator's.
    """


class UnknownNameRefused(UnknownName, ValueError):
    """A caller's run context named a source or model the operator did not configure.

    Still an :class:`~saga_kgqa.config.catalog.UnknownName`; also a :class:`ValueError`, so the LangGraph API
    passes the reason (the unknown name and the configured ones) to its caller instead of "internal error".
    """


def check_caller_context(context: SagaContext, catalog: Catalog) -> tuple[SourceRecord, ModelRecord | None]:
    """Check a caller's context against the operator's catalog and return what it names.

    Args:
        context: The context exactly as the caller sent it (no environment merged in).
        catalog: The operator's catalog.

    Returns:
        The named (or default) source, and the named model record (``None``: the environment's model).

    Raises:
        CallerContextRefused: An infrastructure field is set, or a budget exceeds the operator's limit.
        UnknownNameRefused: The named source or model is not configured.
    """
    defaults = {item.name: item.default for item in dataclasses.fields(SagaContext)}
    given = [name for name in INFRASTRUCTURE_FIELDS if getattr(context, name) != defaults[name]]
    if given:
        raise CallerContextRefused(
            f"a run's context chooses a graph and a model only by name ('source', 'model'); "
            f"it may not set {', '.join(given)}. Configured sources: {', '.join(sorted(catalog.sources))}"
        )
    limits = catalog.limits
    for name in type(limits).model_fields:
        value, most = getattr(context, name), getattr(limits, name)
        if value > most:
            raise CallerContextRefused(f"{name}={value} exceeds the operator's limit of {most}")
    try:
        return catalog.source(context.source), catalog.model(context.model)
    except UnknownName as exc:
        raise UnknownNameRefused(str(exc)) from exc

"""Why a page run failed, in words a page user can act on (the exception's own text stays in the server log).

The page's user is not at the operator's shell: advice names what to check or to press
(Resume, Ask again), never a command-line flag.
"""

from __future__ import annotations

from saga_kgqa.errors import BackendError, ConfigurationError, SagaError
from saga_kgqa.text_safety import graph_text

#: Model client exceptions (OpenAI-compatible clients) by class name, so the web face needs no client import.
_MODEL_FAILURES = {
    "APIConnectionError": "The model server could not be reached. Check that it is running, then press Resume.",
    "APITimeoutError": "The model server did not answer in time. Press Resume to try again from the last step.",
    "AuthenticationError": "The model server refused the operator's credentials; the operator must fix the key.",
    "PermissionDeniedError": "The model server refused the operator's credentials; the operator must fix the key.",
    "NotFoundError": "The model server does not know the configured model name; the operator must fix it.",
    "RateLimitError": "The model server is rate-limiting requests. Wait a minute, then press Resume.",
    "InternalServerError": "The model server failed while answering. Press Resume to try again from the last step.",
    "GraphRecursionError": "The run used up its step budget without a final answer. Ask a narrower question.",
}
NO_MODEL = (
    "No model is configured for this page, so it cannot answer questions. The operator starts it with "
    "SAGA_BASE_URL and SAGA_MODEL set (or a [models] entry in the catalog). Earlier runs can still be opened."
)


def explain(exc: BaseException) -> str:
    """One or two sentences for the page: what went wrong and what the user can do."""
    name = type(exc).__name__
    if name in _MODEL_FAILURES:
        return _MODEL_FAILURES[name]
    if isinstance(exc, ConfigurationError):
        return "The server's configuration stopped this run: " + graph_text(exc.message, 300)
    if isinstance(exc, BackendError):
        return (
            "The knowledge graph could not be queried ("
            + graph_text(exc.message, 200)
            + "). Check that its store is reachable, then press Resume."
        )
    if isinstance(exc, SagaError):
        return "The run stopped: " + graph_text(exc.message, 300) + ". Press Resume to continue from the last step."
    return (
        "The run stopped on an unexpected error. Press Resume to continue from the last step; "
        "if it happens again, tell the operator."
    )

"""One sentence for a failed tool call, as a model reads it: what failed, whose fault, whether to retry.

The agent's graph tools, its source tools and the MCP server all answer a failure in this voice
(``execute``'s own observation, :func:`saga_kgqa.tools.execute.text.error_text`, adds query advice).
The fault and the retry come from the error's class flags (:attr:`SagaError.query_at_fault`,
:attr:`SagaError.retryable`), never from parsing its message; the message is outside text, so it
passes credential redaction (:func:`~saga_kgqa.redaction.redact_text`) and
:func:`~saga_kgqa.text_safety.graph_text` first.
"""

from __future__ import annotations

from saga_kgqa.errors import ConfigurationError, SagaError, ToolInputError
from saga_kgqa.redaction import redact_text
from saga_kgqa.text_safety import graph_text

#: The longest error message a model is shown, in characters (the execute tool shows as many).
ERROR_TEXT_CAP = 1500


def failure_sentence(exc: SagaError, message: str, *, subject: str, with_fault: bool = True) -> str:
    """The sentence ``The {subject} failed ({kind}: {message}); {whose fault}; {whether to retry}.``.

    Args:
        exc: The error (its class names the kind and carries the fault and retry flags).
        message: Its message, already cleaned for the reader.
        subject: What failed, as the reader knows it (``graph``, ``source``, ``call``).
        with_fault: Whether to say if the query must change (a source tool's caller sends no query).
    """
    parts = [f"The {subject} failed ({type(exc).__name__}: {message})"]
    if with_fault:
        parts.append("the query must change" if exc.query_at_fault else "not a problem with your request")
    parts.append("retrying later may help" if exc.retryable else "retrying the same call will not help")
    return "; ".join(parts) + "."


def error_observation(exc: SagaError, tool: str, *, subject: str = "graph", with_fault: bool = True) -> str:
    """The observation of a tool call that failed: a bad argument named as such, else :func:`failure_sentence`.

    Args:
        exc: The error; a :class:`ToolInputError` or :class:`ConfigurationError` is the caller's
            argument at fault (an unknown name, a malformed IRI), anything else the graph's failure.
        tool: The tool the model called.
        subject: What failed (see :func:`failure_sentence`).
        with_fault: Whether to say if the query must change.
    """
    message = graph_text(redact_text(exc.message), ERROR_TEXT_CAP)
    if isinstance(exc, ToolInputError | ConfigurationError):
        return f"Invalid argument for {tool}: {message}"
    return failure_sentence(exc, message, subject=subject, with_fault=with_fault)

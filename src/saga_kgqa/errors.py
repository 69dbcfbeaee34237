"""The error taxonomy shared by every layer.

Errors stay typed until the last moment: only ``tools/render.py`` turns them into text
for a model. Each class says whether the query is at fault and whether retrying the
same request can help, so renderers and retry policies never parse messages.
"""

from __future__ import annotations


class SagaError(Exception):
    """Base class of every error raised by saga-kgqa."""

    #: True when the query text itself is wrong and must be changed before resending.
    query_at_fault: bool = False
    #: True when resending the same request later may succeed.
    retryable: bool = False

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConfigurationError(SagaError):
    """A setting, file or argument given by the operator is unusable."""


class CacheCorrupted(ConfigurationError):
    """A record/replay cache file cannot be read back; an operator must repair or delete it.

    Attributes:
        path: The unreadable cache file.
    """

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(message)
        self.path = path


class ToolInputError(SagaError):
    """A tool was called with an unusable argument (text where an IRI is needed, an unknown prefix, ...).

    The message says what was expected, so a model can correct the call.
    """

    query_at_fault = True


class BackendError(SagaError):
    """A query could not be answered by a graph store or endpoint."""


class QueryRejected(BackendError):
    """The read-only guard refused the query; nothing was sent to any store.

    Attributes:
        reason: A short machine-readable reason code (``update``, ``service``,
            ``syntax``, ``too_complex``, ``too_large``, ``empty``, ``form``, ...).
        line: 1-based line of a syntax error, when known.
        column: 1-based column of a syntax error, when known.
    """

    query_at_fault = True

    def __init__(self, message: str, *, reason: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.line = line
        self.column = column


class QuerySyntaxError(BackendError):
    """The store or endpoint says the query is malformed."""

    query_at_fault = True

    def __init__(self, message: str, *, server_text: str = "") -> None:
        super().__init__(message)
        self.server_text = server_text


class QueryEvaluationError(QuerySyntaxError):
    """The query is well-formed but the store failed evaluating it, and the query is at fault.

    Division by zero, an invalid regular expression, a failed cast, an unknown function
    (Virtuoso SQLSTATE class 22 and 42001). ``server_text`` holds the store's message.
    """


class QueryTimeout(BackendError):
    """The query ran past its deadline (ours or the server's)."""

    query_at_fault = True


class QueryTooHeavy(QueryTimeout):
    """The store refused the query before running it: its estimated cost exceeds the store's limit."""


class EndpointThrottled(BackendError):
    """The endpoint asks us to slow down (HTTP 429 and friends).

    Attributes:
        retry_after_s: Seconds the endpoint asked us to wait, when it said.
    """

    retryable = True

    def __init__(self, message: str, *, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class EndpointUnavailable(BackendError):
    """The endpoint cannot be reached or is failing; the query is not at fault."""

    retryable = True


class EndpointBanned(EndpointUnavailable):
    """The endpoint has banned this client for a while; an operator must act."""

    retryable = False


class EndpointRedirected(EndpointUnavailable):
    """The endpoint answered with a redirect, which is never followed; an operator must act.

    Following it would send our requests (and record the answers) wherever the server
    points, any host or scheme. The operator may configure the new URL instead.

    Attributes:
        location: Where the endpoint pointed (as sent, resolved against the request URL).
    """

    retryable = False

    def __init__(self, message: str, *, location: str) -> None:
        super().__init__(message)
        self.location = location


class EndpointRefused(EndpointUnavailable):
    """The endpoint's security settings refuse this account the operation (Virtuoso SR186).

    Neither a rewrite nor a retry helps; an operator must change the endpoint's grants.
    """

    retryable = False


class BadResponse(BackendError):
    """The endpoint answered with something that is not a valid result.

    HTML, cut-off bodies or invalid JSON are never taken for an empty result.
    """

    retryable = True


class SourceMisbehaved(BadResponse):
    """An endpoint answered with a value that cannot be what was asked (text where a count belongs).

    The message quotes the value as data; renderers sanitise it like any graph text.
    """

    retryable = False


class CacheMiss(BackendError):
    """Replay mode found no recording for a request; no live call was made."""


class QueryMemoryExhausted(BackendError):
    """The query used up the embedded store's worker memory cap; the worker died and the query is not retried."""

    query_at_fault = True


class QueryCrashedEngine(BackendError):
    """The query crashed the embedded store's engine (its worker died answering it); it is not retried."""

    query_at_fault = True

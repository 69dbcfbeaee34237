"""Reading an endpoint's HTTP answer: status, headers and body, read through its profile.

The same status means different things on different stores (docs/faults.md section 1):
a 429 from WDQS says "slow down", from QLever it says "your query timed out"; WDQS
reports its 60 s timeout as HTTP 500 with a Java trace; Virtuoso flags a partial answer
only in a header. :func:`classify` turns all of that into one :class:`Fault`, and
:func:`fault_error` into the typed error of :mod:`saga_kgqa.errors`. Nothing here does
I/O, so every rule is testable on its own.
"""

from __future__ import annotations

import email.utils
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from saga_kgqa.errors import (
    BackendError,
    BadResponse,
    EndpointBanned,
    EndpointRefused,
    EndpointThrottled,
    EndpointUnavailable,
    QueryEvaluationError,
    QuerySyntaxError,
    QueryTimeout,
    QueryTooHeavy,
)
from saga_kgqa.kg.core.profiles import EndpointProfile
from saga_kgqa.kg.remote.server_text import SERVER_TEXT_LIMIT, cut, server_text
from saga_kgqa.kg.remote.sqlstate import parse_sql_error, without_query_echo

#: A ban whose end cannot be read from the body lasts this long (WDQS bans for 24 h).
DEFAULT_BAN_S = 24 * 3600.0

#: Largest wait :func:`parse_retry_after` returns (about 31,700 years): finite, whatever the header says.
RETRY_AFTER_CEILING_S = 1e12

BodyEnding = Literal["eof", "cap", "cut"]
FaultKind = Literal[
    "syntax",
    "query_error",
    "too_heavy",
    "server_timeout",
    "throttled",
    "banned",
    "refused",
    "gateway",
    "unavailable",
    "bad_response",
]

_TIMEOUT_MARKERS = (
    "java.util.concurrent.timeoutexception",  # WDQS / Blazegraph, HTTP 500
    "timed out",  # QLever "Operation timed out" / "Query timed out", and many others
    "s1t00",  # Virtuoso "Transaction timed out"
    "query interrupted by result timeout",
    "has been cancelled",  # Oxigraph's --timeout-s text inside a cut 200 body
)
_SYNTAX_MARKERS = (
    "malformedqueryexception",
    "parse error",
    "parseexception",
    "syntax error",
    "invalid sparql",
    "sp030",  # Virtuoso SPARQL compiler error code
)
_BAN_MARKER = "banned"
_BAN_UNTIL_ISO = re.compile(
    r"banned\s+until\s+(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)", re.IGNORECASE
)
_BAN_UNTIL_HTTP_DATE = re.compile(
    r"banned\s+until\s+((?:[A-Z][a-z]{2},\s+)?\d{1,2}\s+[A-Z][a-z]{2}\s+\d{4}\s+\d{2}:\d{2}:\d{2}\s+(?:GMT|UTC|[+-]\d{4}))",
    re.IGNORECASE,
)
_DELTA_SECONDS = re.compile(r"[0-9]+")


@dataclass(frozen=True, slots=True)
class HttpReply:
    """What came back from one HTTP request, body already read under our caps.

    Attributes:
        status: The HTTP status code.
        headers: Response headers as ``(name, value)`` pairs, in order.
        body: The bytes read (at most the byte cap).
        ending: ``eof`` when the whole body was read, ``cap`` when our byte cap stopped
            reading, ``cut`` when the connection ended before the declared length.
    """

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    ending: BodyEnding = "eof"

    def header(self, name: str) -> str | None:
        """Return the first value of header ``name`` (case-insensitive), or ``None``."""
        wanted = name.lower()
        for key, value in self.headers:
            if key.lower() == wanted:
                return value
        return None

    @property
    def content_type(self) -> str:
        """The media type without parameters, lower-cased (empty when absent)."""
        value = self.header("Content-Type") or ""
        return value.split(";", 1)[0].strip().lower()


@dataclass(frozen=True, slots=True)
class Fault:
    """Why a reply is not a usable result, and what may be done about it.

    Attributes:
        kind: The class of failure.
        message: A short explanation in words the model and operator can act on.
        server_text: The endpoint's own explanation, focused and cut to :data:`SERVER_TEXT_LIMIT`.
        retry_after_s: Seconds the endpoint asked us to wait (throttling), when it said.
        ban_s: Seconds from now until a ban ends (``banned`` only).
        retry_if_anchored: A server-side timeout that may be retried once, unchanged,
            when the query is anchored on a constant IRI (a cold cache, not a heavy query).
    """

    kind: FaultKind
    message: str
    server_text: str = ""
    retry_after_s: float | None = None
    ban_s: float | None = None
    retry_if_anchored: bool = False


def classify(reply: HttpReply, profile: EndpointProfile, *, wall_now: float) -> Fault | None:
    """Decide whether a reply is a usable result and, if not, what went wrong.

    A ``None`` answer means "hand the body to the result parser"; the parser still
    rejects bodies that are not valid results.

    Args:
        reply: The reply, body read.
        profile: The endpoint profile, which says how to read ambiguous signals.
        wall_now: The current wall-clock time (to turn HTTP dates into waits).

    Returns:
        The fault, or ``None`` for a 2xx reply whose body may be parsed.
    """
    status = reply.status
    if 200 <= status < 300:
        return _classify_success(reply)
    text = server_text(reply.body, reply.content_type)
    if profile.sqlstate_errors:
        fault = _sqlstate_fault(status, text)
        if fault is not None:
            return fault
    lowered = reply.body[:65536].decode("utf-8", errors="replace").lower()
    if status == 400:
        if not _has(lowered, _SYNTAX_MARKERS) and _has(lowered, _TIMEOUT_MARKERS):
            return _timeout(status, text, retry_if_anchored=False)
        return Fault("syntax", "the endpoint says the query is malformed (HTTP 400)", text)
    if status in (413, 414, 431):
        return Fault("syntax", f"the endpoint refused the query as too long (HTTP {status}); shorten it", text)
    if status == 403 and _BAN_MARKER in lowered:
        return Fault("banned", "the endpoint has banned this client", text, ban_s=_ban_seconds(reply, wall_now))
    if status == 429:
        if profile.throttle_means_timeout and _has(lowered, _TIMEOUT_MARKERS):
            return _timeout(status, text, retry_if_anchored=False)
        retry_after = parse_retry_after(reply.header("Retry-After"), wall_now=wall_now)
        return Fault("throttled", "the endpoint is throttling this client (HTTP 429)", text, retry_after_s=retry_after)
    if status == 503 and reply.header("Retry-After") is not None:
        retry_after = parse_retry_after(reply.header("Retry-After"), wall_now=wall_now)
        return Fault(
            "throttled", "the endpoint is overloaded (HTTP 503 with Retry-After)", text, retry_after_s=retry_after
        )
    if status in (408, 502, 503, 504):
        return Fault("gateway", f"a gateway in front of the endpoint failed (HTTP {status})", text)
    if status == 500:
        if _has(lowered, _TIMEOUT_MARKERS):
            return _timeout(status, text, retry_if_anchored=True)
        if _has(lowered, _SYNTAX_MARKERS):
            return Fault("syntax", "the endpoint could not compile the query (HTTP 500)", text)
        return Fault("unavailable", "the endpoint failed with an internal error (HTTP 500)", text)
    if status in (401, 403):
        return Fault("unavailable", f"the endpoint refused access (HTTP {status}); an operator must check it", text)
    if status == 404:
        return Fault("unavailable", "there is no SPARQL endpoint at the configured URL (HTTP 404)", text)
    if 300 <= status < 400:
        return Fault("bad_response", f"the endpoint answered with an unfollowed redirect (HTTP {status})", text)
    return Fault("unavailable", f"the endpoint answered HTTP {status}", text)


def _sqlstate_fault(status: int, text: str) -> Fault | None:
    """Classify by the SQLSTATE of the error line (Virtuoso), before the status rules."""
    error = parse_sql_error(text)
    if error is None:
        return None
    said = cut(without_query_echo(text), SERVER_TEXT_LIMIT)
    where = f"HTTP {status}, SQLSTATE {error.state}" + (f" {error.code}" if error.code else "")
    if error.kind == "syntax":
        return Fault("syntax", f"the endpoint says the query is malformed ({where})", said)
    if error.kind == "query_error":
        return Fault("query_error", f"the endpoint failed evaluating the query ({where})", said)
    if error.kind == "too_heavy":
        return Fault("too_heavy", f"the endpoint refused the query as too heavy before running it ({where})", said)
    if error.kind == "server_timeout":
        # A resend runs into the same server limit: never retried unchanged.
        return Fault("server_timeout", f"the endpoint timed out the query ({where})", said)
    if error.kind == "refused":
        return Fault("refused", f"the endpoint's security settings refuse this request ({where})", said)
    return Fault("unavailable", f"the endpoint failed ({where})", said)


def _classify_success(reply: HttpReply) -> Fault | None:
    # Only failures need the server's text; a good body is left alone for the parser.
    if reply.ending == "cut":
        tail = reply.body[-4096:].decode("utf-8", errors="replace")
        if looks_like_timeout(tail):
            return _timeout(reply.status, cut(tail.strip(), SERVER_TEXT_LIMIT), retry_if_anchored=False)
        return Fault("bad_response", "the response body was cut off mid-stream")
    if reply.content_type in ("text/html", "application/xhtml+xml"):
        text = server_text(reply.body, reply.content_type)
        return Fault("bad_response", "the endpoint answered with an HTML page instead of a result", text)
    return None


def _timeout(status: int, text: str, *, retry_if_anchored: bool) -> Fault:
    return Fault(
        "server_timeout",
        f"the endpoint timed out the query (HTTP {status})",
        text,
        retry_if_anchored=retry_if_anchored,
    )


def _has(lowered: str, markers: tuple[str, ...]) -> bool:
    return any(marker in lowered for marker in markers)


def looks_like_timeout(text: str) -> bool:
    """Whether ``text`` carries one of the known server timeout messages."""
    return _has(text.lower(), _TIMEOUT_MARKERS)


def parse_retry_after(value: str | None, *, wall_now: float) -> float | None:
    """Read a ``Retry-After`` header: delta seconds or an HTTP date.

    Args:
        value: The header value, or ``None`` when absent.
        wall_now: The current wall-clock time, for the HTTP-date form.

    Returns:
        Seconds to wait (never negative, never infinite: at most
        :data:`RETRY_AFTER_CEILING_S`; callers cap it further), or ``None`` when absent
        or unreadable.
    """
    if value is None:
        return None
    value = value.strip()
    # ASCII digits only: str.isdigit() also accepts "²" and "٣", which float() refuses.
    if _DELTA_SECONDS.fullmatch(value):
        # A 300-digit number would become inf as a float (and int() refuses 4,300 digits).
        return RETRY_AFTER_CEILING_S if len(value) > 12 else min(float(int(value)), RETRY_AFTER_CEILING_S)
    try:
        when = email.utils.parsedate_to_datetime(value)
        seconds = when.timestamp() - wall_now
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return min(max(0.0, seconds), RETRY_AFTER_CEILING_S)


def _ban_seconds(reply: HttpReply, wall_now: float) -> float:
    """Seconds until a ban ends: from the body's "banned until ..." date, else Retry-After, else a day."""
    text = reply.body[:65536].decode("utf-8", errors="replace")
    for pattern in (_BAN_UNTIL_ISO, _BAN_UNTIL_HTTP_DATE):
        match = pattern.search(text)
        when = _parse_date(match.group(1)) if match else None
        if when is not None:
            return max(0.0, when - wall_now)
    retry_after = parse_retry_after(reply.header("Retry-After"), wall_now=wall_now)
    return retry_after if retry_after is not None else DEFAULT_BAN_S


def _parse_date(text: str) -> float | None:
    """Seconds since the epoch of an ISO 8601 or HTTP date; a date without a zone is taken as UTC."""
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def partial_result_note(reply: HttpReply, profile: EndpointProfile) -> str | None:
    """A note when the profile's partial-result headers are present (Virtuoso "anytime" answers).

    Returns:
        The note, or ``None`` when the answer is complete as far as the headers tell.
    """
    for name in profile.partial_result_headers:
        value = reply.header(name)
        if value is not None:
            detail = reply.header("X-SQL-Message")
            said = f"{name}: {value}" + (f"; {detail}" if detail else "")
            return (
                f"the endpoint returned a partial result ({said}); rows may be missing and "
                "counts or aggregates may be wrong"
            )
    return None


def server_row_cap(reply: HttpReply, profile: EndpointProfile) -> int | None:
    """The server's own row cap when its header says it cut the answer (Virtuoso ``X-SPARQL-MaxRows``)."""
    if profile.row_cap_header is None:
        return None
    value = (reply.header(profile.row_cap_header) or "").strip()
    return int(value) if value.isdigit() else None


def fault_error(fault: Fault, *, endpoint: str) -> BackendError:
    """Turn a fault into the typed error raised to callers.

    Args:
        fault: The classified fault.
        endpoint: The endpoint URL, for the message.

    Returns:
        The error to raise; it carries advice on what to change, if anything.
    """
    said = f" Server said: {fault.server_text}" if fault.server_text else ""
    if fault.kind == "syntax":
        return QuerySyntaxError(
            f"{fault.message}. Fix the query; do not resend the same text.{said}", server_text=fault.server_text
        )
    if fault.kind == "query_error":
        return QueryEvaluationError(
            f"{fault.message}. The query is at fault (for example a division by zero, an invalid regular "
            f"expression, a failed cast or an unknown function): change it; do not resend the same text.{said}",
            server_text=fault.server_text,
        )
    if fault.kind == "too_heavy":
        return QueryTooHeavy(
            f"{fault.message}. Its estimated cost exceeds what {endpoint} allows: narrow it (anchor it on a "
            "known entity, add selective triple patterns, split it into smaller queries, avoid unbound "
            f"joins); do not resend it unchanged.{said}"
        )
    if fault.kind == "refused":
        return EndpointRefused(
            f"{fault.message}. This is not the query's fault and retrying will not help: an operator must "
            f"change the endpoint's permissions.{said}"
        )
    if fault.kind == "server_timeout":
        return QueryTimeout(
            f"{fault.message}. The query is too heavy for {endpoint}: narrow it (anchor it on a known "
            f"entity, add a LIMIT, drop OPTIONALs or ORDER BY); do not resend it unchanged.{said}"
        )
    if fault.kind == "throttled":
        wait = fault.retry_after_s
        after = f"retry after {wait:.0f} s" if wait is not None else "retry later"
        return EndpointThrottled(
            f"endpoint busy: {fault.message}; {after}. This is not the query's fault.", retry_after_s=wait
        )
    if fault.kind == "banned":
        return EndpointBanned(
            f"{endpoint} has banned this client ({_ban_words(fault.ban_s)}). An operator must act: check the "
            f"User-Agent and the request rate; no request will be sent until the ban ends.{said}"
        )
    if fault.kind == "bad_response":
        return BadResponse(f"{fault.message}; this is not an empty result.{said}")
    return EndpointUnavailable(
        f"{fault.message}. This is not the query's fault; do not rewrite the query, retry later.{said}"
    )


def _ban_words(ban_s: float | None) -> str:
    if ban_s is None:
        return "for an unknown time"
    return f"for another {ban_s / 3600:.1f} h" if ban_s >= 3600 else f"for another {ban_s:.0f} s"

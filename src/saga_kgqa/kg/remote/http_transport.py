"""One SPARQL protocol request with a total deadline and a byte cap.

SPARQLWrapper builds the request (query encoding, GET or POST, headers) and
:meth:`SPARQLWrapper.query` hands back the open response. Two of its habits are
unsafe for us (docs/faults.md section 2), so :class:`_RawResponseWrapper` changes
exactly one internal step, ``_query``:

* its ``setTimeout`` is an ``int`` applied to each socket operation, so a server that
  drip-feeds bytes is never timed out, and fractions of a second round to "no timeout";
* on an error status it reads the whole error body into memory, without a deadline.

Here the socket timeout is re-armed before every read with the time left, a watchdog
shuts the socket down when the deadline passes (this also ends a drip-fed header), and
bodies are read in small chunks up to a byte cap. The watchdog is one long-lived thread
for all requests (:mod:`saga_kgqa.kg.remote.deadline_watch`), not a thread per request.
HTTP errors come back as replies, body read under the same rules, for
:mod:`saga_kgqa.kg.remote.http_classify` to judge.

Redirects are never followed (issue 10, hole 2): the opener has no redirect handler and
no handler for any scheme but http and https, and a 3xx with a ``Location`` raises
:class:`Redirected`. :func:`get` gives other HTTP clients (MediaWiki entity search) the
same deadline, byte cap and redirect rule.
"""

from __future__ import annotations

import http.client
import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any, Literal

from SPARQLWrapper import JSON, POST, TURTLE, SPARQLWrapper

from saga_kgqa.kg.core.clock import Deadline
from saga_kgqa.kg.core.result import QueryForm
from saga_kgqa.kg.remote.deadline_watch import watch
from saga_kgqa.kg.remote.endpoint_url import split_endpoint_url
from saga_kgqa.kg.remote.http_classify import BodyEnding, HttpReply
from saga_kgqa.kg.remote.http_opener import SocketRecorder, opener_for

RequestMethod = Literal["GET", "POST", "auto"]

#: ``auto`` switches from GET to POST when the request URL would be longer than this.
GET_URL_LIMIT = 2000
#: Bytes asked for per read; small enough to check the deadline often.
CHUNK_BYTES = 64 * 1024
#: Error bodies are only read to explain the error; longer ones are cut.
ERROR_BODY_CAP = 64 * 1024

_ACCEPT_SOLUTIONS = "application/sparql-results+json, application/json;q=0.9"
_ACCEPT_GRAPH = "application/n-triples, text/turtle;q=0.9"


class DeadlineExceeded(Exception):
    """The total deadline passed during the request."""


class TransportFailure(Exception):
    """No HTTP answer came back.

    Attributes:
        reason: What failed, in words.
        connected: Whether a connection had been made (``False``: refused, DNS, unroutable).
    """

    def __init__(self, reason: str, *, connected: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.connected = connected


class Redirected(Exception):
    """The server answered with a redirect, which is not followed.

    Attributes:
        status: The 3xx status.
        location: The ``Location`` header resolved against the request URL.
    """

    def __init__(self, status: int, location: str) -> None:
        super().__init__(f"HTTP {status} to {location}")
        self.status = status
        self.location = location


class _RawResponseWrapper(SPARQLWrapper):
    """SPARQLWrapper whose ``query()`` returns the open response, error statuses included."""

    def __init__(self, endpoint: str, *, agent: str, recorder: SocketRecorder, socket_timeout: float) -> None:
        super().__init__(endpoint, agent=agent)
        self._opener = opener_for(recorder)
        self._socket_timeout = socket_timeout

    def _query(self) -> tuple[Any, str]:
        request = self._createRequest()
        try:
            response = self._opener.open(request, timeout=self._socket_timeout)
        except urllib.error.HTTPError as error:
            # Unlike SPARQLWrapper, keep the error's status, headers and unread body.
            response = error
        return response, self.returnFormat


def choose_method(url: str, text: str, method: RequestMethod) -> Literal["GET", "POST"]:
    """Resolve ``auto``: GET (cacheable, what WDQS prefers) unless the URL would be too long."""
    if method != "auto":
        return method
    length = len(url) + 1 + len(urllib.parse.urlencode({"query": text}))
    return "GET" if length <= GET_URL_LIMIT else "POST"


def send(
    url: str,
    text: str,
    form: QueryForm,
    *,
    agent: str,
    method: Literal["GET", "POST"],
    deadline: Deadline,
    max_bytes: int,
    params: Sequence[tuple[str, str]] = (),
) -> HttpReply:
    """Send one SPARQL query and read the answer under the deadline and the byte cap.

    Args:
        url: The endpoint URL.
        text: The query text, sent as is.
        form: The query form; it picks the requested media types.
        agent: The User-Agent header.
        method: GET or POST (form-encoded).
        deadline: The total deadline, covering connect, wait and transfer.
        max_bytes: Bytes of a 2xx body read before stopping (``ending == "cap"``).
        params: Protocol parameters sent beside the query (graphs, a server timeout),
            after those of the URL's own query string.

    Returns:
        The reply, whatever its status.

    Raises:
        DeadlineExceeded: The deadline passed first.
        TransportFailure: No HTTP answer came back.
        Redirected: The endpoint answered with a redirect.
    """
    remaining = deadline.remaining()
    if remaining <= 0:
        raise DeadlineExceeded
    recorder = SocketRecorder()
    bare_url, url_params = split_endpoint_url(url)
    wrapper = _RawResponseWrapper(bare_url, agent=agent, recorder=recorder, socket_timeout=remaining)
    for name, value in (*url_params, *params):
        wrapper.addParameter(name, value)
    solutions = form in ("SELECT", "ASK")
    # The return format only keeps SPARQLWrapper from warning; our Accept header replaces its own.
    wrapper.setReturnFormat(JSON if solutions else TURTLE)
    wrapper.setOnlyConneg(True)
    wrapper.addCustomHttpHeader("Accept", _ACCEPT_SOLUTIONS if solutions else _ACCEPT_GRAPH)
    wrapper.setMethod(POST if method == "POST" else "GET")
    # Set the text and form directly: SPARQLWrapper's regex type sniffing must never
    # decide that a query is an update and route it to an update endpoint.
    wrapper.queryString = text
    wrapper.queryType = form
    with watch(remaining, recorder.fire):
        return _exchange(lambda: wrapper.query().response, url, recorder, deadline, max_bytes)


def get(url: str, *, agent: str, accept: str, deadline: Deadline, max_bytes: int) -> HttpReply:
    """GET ``url`` under the same total deadline, byte cap and redirect rule as :func:`send`.

    Args:
        url: An http(s) URL (any other scheme fails: no handler is installed for it).
        agent: The User-Agent header.
        accept: The Accept header.
        deadline: The total deadline, covering connect, wait and transfer.
        max_bytes: Bytes of a 2xx body read before stopping (``ending == "cap"``).

    Returns:
        The reply, whatever its status.

    Raises:
        DeadlineExceeded: The deadline passed first.
        TransportFailure: No HTTP answer came back.
        Redirected: The server answered with a redirect.
    """
    remaining = deadline.remaining()
    if remaining <= 0:
        raise DeadlineExceeded
    recorder = SocketRecorder()
    opener = opener_for(recorder)
    request = urllib.request.Request(url, headers={"User-Agent": agent, "Accept": accept})  # noqa: S310 - http(s) only

    def open_response() -> Any:
        try:
            return opener.open(request, timeout=remaining)
        except urllib.error.HTTPError as error:
            return error

    with watch(remaining, recorder.fire):
        return _exchange(open_response, url, recorder, deadline, max_bytes)


def _exchange(
    open_response: Callable[[], Any], url: str, recorder: SocketRecorder, deadline: Deadline, max_bytes: int
) -> HttpReply:
    try:
        response = open_response()
    except urllib.error.URLError as error:
        reason = error.reason
        if recorder.deadline_fired or deadline.expired():
            raise DeadlineExceeded from error
        if isinstance(reason, socket.gaierror):
            raise TransportFailure(f"cannot resolve the endpoint's host name ({reason})", connected=False) from error
        connected = recorder.sock is not None
        raise TransportFailure(f"cannot connect to the endpoint ({reason})", connected=connected) from error
    except (OSError, http.client.HTTPException) as error:
        if recorder.deadline_fired or deadline.expired() or isinstance(error, TimeoutError):
            raise DeadlineExceeded from error
        raise TransportFailure(f"the connection failed before an answer ({error!r})", connected=True) from error
    if isinstance(response, urllib.error.HTTPError):
        status, headers, stream = response.code, list(response.headers.items()), response.fp
    else:
        status, headers, stream = response.status, response.getheaders(), response
    location = next((value for name, value in headers if name.lower() == "location"), None)
    if 300 <= status < 400 and location is not None:
        response.close()
        raise Redirected(status, urllib.parse.urljoin(url, location.strip()))
    cap = max_bytes if 200 <= status < 300 else ERROR_BODY_CAP
    try:
        body, ending = _read_body(stream, recorder, deadline, cap, _declared_length(headers))
    finally:
        response.close()
    return HttpReply(status=status, headers=tuple(headers), body=body, ending=ending)


def _declared_length(headers: list[tuple[str, str]]) -> int | None:
    for name, value in headers:
        if name.lower() == "content-length" and value.strip().isdigit():
            return int(value)
    return None


def _read_body(
    stream: Any, recorder: SocketRecorder, deadline: Deadline, cap: int, declared: int | None
) -> tuple[bytes, BodyEnding]:
    """Read up to ``cap`` bytes in chunks, re-arming the socket timeout with the time left."""
    if stream is None:
        return b"", "eof"
    body = bytearray()
    while True:
        left = deadline.remaining()
        if left <= 0 or recorder.deadline_fired:
            raise DeadlineExceeded
        recorder.arm(left)
        # At the cap, ask for one more byte only to learn whether the body goes on.
        want = min(CHUNK_BYTES, cap - len(body)) if len(body) < cap else 1
        try:
            chunk = stream.read1(want)
        except http.client.IncompleteRead as error:
            body.extend(error.partial[: max(0, cap - len(body))])
            return bytes(body), "cut"
        except (OSError, http.client.HTTPException) as error:
            if recorder.deadline_fired or deadline.expired() or isinstance(error, TimeoutError):
                raise DeadlineExceeded from error
            return bytes(body), "cut"
        if not chunk:
            if recorder.deadline_fired:
                raise DeadlineExceeded
            cut_short = declared is not None and len(body) < declared
            return bytes(body), "cut" if cut_short else "eof"
        if len(body) >= cap:
            return bytes(body), "cap"
        body.extend(chunk)

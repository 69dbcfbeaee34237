"""A scriptable SPARQL endpoint on loopback for fault-injection tests (docs/faults.md section 8B).

Each test queues the responses it wants (status, headers, body, a delay before the
headers, a body drip-fed in chunks, a body that never ends, a declared length the body
does not reach). The server records every request and the largest number of requests
it was serving at once.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

SPARQL_JSON = "application/sparql-results+json"


@dataclass
class Scripted:
    """One scripted response.

    Attributes:
        status: HTTP status.
        body: Body bytes (ignored when ``body_stream`` is set).
        headers: Extra headers.
        content_type: ``Content-Type``; ``None`` sends none.
        delay_s: Wait before sending the status line.
        chunk_bytes: Send the body in pieces of this size (0: one write).
        chunk_interval_s: Wait between pieces.
        body_stream: Makes the body lazily (large or endless bodies).
        content_length: Declared length: ``auto`` for the real one, ``None`` for none
            (the body ends when the connection closes), or a number (a larger number
            than the body fakes a body cut off mid-stream).
        endless_header_interval_s: When set, after the status line send one header
            byte per interval, forever (a slowloris on the headers).
    """

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str | None = SPARQL_JSON
    delay_s: float = 0.0
    chunk_bytes: int = 0
    chunk_interval_s: float = 0.0
    body_stream: Callable[[], Iterator[bytes]] | None = None
    content_length: int | Literal["auto"] | None = "auto"
    endless_header_interval_s: float = 0.0


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the fake endpoint saw it."""

    method: str
    path: str
    query: str
    user_agent: str
    accept: str
    params: str = ""


def select_json(variables: list[str], bindings: list[dict[str, Any]], **kwargs: Any) -> Scripted:
    """A 200 SPARQL JSON SELECT answer."""
    document = {"head": {"vars": variables}, "results": {"bindings": bindings}}
    return Scripted(body=json.dumps(document).encode(), **kwargs)


def ask_json(value: bool, **kwargs: Any) -> Scripted:
    """A 200 SPARQL JSON ASK answer."""
    return Scripted(body=json.dumps({"head": {}, "boolean": value}).encode(), **kwargs)


def redirect(location: str, status: int = 302) -> Scripted:
    """A redirect (301, 302, 303, 307 or 308) to ``location``, with a small HTML body as servers send."""
    body = f'<html><body>Moved to <a href="{location}">here</a></body></html>'.encode()
    return Scripted(status=status, body=body, headers={"Location": location}, content_type="text/html")


def uri_rows(count: int, variable: str = "s") -> list[dict[str, Any]]:
    """``count`` bindings of ``variable`` to ``http://example.org/item/<i>``."""
    return [{variable: {"type": "uri", "value": f"http://example.org/item/{i}"}} for i in range(count)]


class FakeEndpoint:
    """A loopback HTTP server that answers from a script and records what it was asked.

    Attributes:
        fallback: Answer used when the queue is empty (by default a 500 that names the problem).
    """

    def __init__(self) -> None:
        self._queue: deque[Scripted] = deque()
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._in_flight = 0
        self._max_in_flight = 0
        self._bytes_sent = 0
        self.stopping = threading.Event()
        self.fallback: Scripted | None = None
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._server.fake = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """The endpoint URL."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/sparql"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Requests received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def queries(self) -> list[str]:
        """The query text of each request, in arrival order."""
        return [request.query for request in self.requests]

    @property
    def max_in_flight(self) -> int:
        """The largest number of requests served at the same time."""
        with self._lock:
            return self._max_in_flight

    @property
    def bytes_sent(self) -> int:
        """Body bytes written to clients (a client that stops reading makes this stop growing)."""
        with self._lock:
            return self._bytes_sent

    def script(self, *responses: Scripted) -> None:
        """Queue responses, answered in order, one per request."""
        with self._lock:
            self._queue.extend(responses)

    def close(self) -> None:
        """Stop serving and release every handler that is still waiting."""
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeEndpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _begin(self, request: RecordedRequest) -> Scripted:
        with self._lock:
            self._requests.append(request)
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            if self._queue:
                return self._queue.popleft()
        return self.fallback or Scripted(
            status=500, body=b"fake endpoint: no response scripted for this request", content_type="text/plain"
        )

    def _end(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _count_sent(self, count: int) -> None:
        with self._lock:
            self._bytes_sent += count


class _Handler(BaseHTTPRequestHandler):
    server: ThreadingHTTPServer

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def _query_text(self) -> str:
        if self.command == "GET":
            return urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).get("query", [""])[0]
        length = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(length).decode("utf-8")
        if self.headers.get("Content-Type", "").startswith("application/sparql-query"):
            return data
        return urllib.parse.parse_qs(data).get("query", [""])[0]

    def _serve(self) -> None:
        fake: FakeEndpoint = self.server.fake  # type: ignore[attr-defined]
        recorded = RecordedRequest(
            method=self.command,
            path=urllib.parse.urlsplit(self.path).path,
            query=self._query_text(),
            user_agent=self.headers.get("User-Agent", ""),
            accept=self.headers.get("Accept", ""),
            params=urllib.parse.urlsplit(self.path).query,
        )
        scripted = fake._begin(recorded)
        self._ended = False
        try:
            self._respond(fake, scripted)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: that is what several tests check
        finally:
            self._finish(fake)

    def _finish(self, fake: FakeEndpoint) -> None:
        if not self._ended:
            self._ended = True
            fake._end()

    def _respond(self, fake: FakeEndpoint, scripted: Scripted) -> None:
        if scripted.delay_s and fake.stopping.wait(scripted.delay_s):
            return
        self.send_response(scripted.status)
        if scripted.endless_header_interval_s:
            self._drip_header_forever(fake, scripted.endless_header_interval_s)
            return
        if scripted.content_type is not None:
            self.send_header("Content-Type", scripted.content_type)
        for name, value in scripted.headers.items():
            self.send_header(name, value)
        if scripted.content_length == "auto" and scripted.body_stream is None:
            self.send_header("Content-Length", str(len(scripted.body)))
        elif isinstance(scripted.content_length, int):
            self.send_header("Content-Length", str(scripted.content_length))
        self.send_header("Connection", "close")
        self.end_headers()
        pieces = self._pieces(scripted)
        piece = next(pieces, None)
        while piece is not None:
            following = next(pieces, None)
            if following is None:
                # The client may act on the last byte at once (start its next request): count this
                # request as finished before sending it, or max_in_flight would see a false overlap.
                self._finish(fake)
            self.wfile.write(piece)
            self.wfile.flush()
            fake._count_sent(len(piece))
            if scripted.chunk_interval_s and fake.stopping.wait(scripted.chunk_interval_s):
                return
            piece = following

    def _drip_header_forever(self, fake: FakeEndpoint, interval_s: float) -> None:
        self.flush_headers()
        self.wfile.write(b"X-Slow: ")
        while not fake.stopping.wait(interval_s):
            self.wfile.write(b"a")
            self.wfile.flush()

    @staticmethod
    def _pieces(scripted: Scripted) -> Iterator[bytes]:
        if scripted.body_stream is not None:
            yield from scripted.body_stream()
            return
        size = scripted.chunk_bytes or max(len(scripted.body), 1)
        for start in range(0, len(scripted.body), size):
            yield scripted.body[start : start + size]

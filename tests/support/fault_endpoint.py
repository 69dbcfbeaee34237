"""A SPARQL endpoint on loopback over an in-memory pyoxigraph store, failing on purpose where a query asks.

``/sparql`` answers every query. ``/timeout/sparql`` and ``/error/sparql`` answer too, except a
query that names :data:`FAULT_IRI`: it gets the reply a real endpoint gives when it times a query
out (HTTP 500 "Query timed out", as QLever and Blazegraph say it) or fails (HTTP 500 with no
reason). So a scripted run reaches its faulty query through every layer a real one does.
"""

from __future__ import annotations

import threading
import urllib.parse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pyoxigraph as ox

#: The IRI a query names to meet its endpoint's fault.
FAULT_IRI = "urn:fault:hit"
_REPLIES = {
    "timeout": (500, b"Query timed out: the query ran past the server's time limit"),
    "error": (500, b"Internal Server Error"),
}


def _handler(store: ox.Store) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # the base class's name
            return

        def do_GET(self) -> None:
            parsed = urllib.parse.urlsplit(self.path)
            self._answer(parsed.path, urllib.parse.parse_qs(parsed.query).get("query", [""])[0])

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8", errors="replace")
            kind = (self.headers.get("Content-Type") or "").split(";")[0].strip()
            query = body if kind == "application/sparql-query" else urllib.parse.parse_qs(body).get("query", [""])[0]
            self._answer(urllib.parse.urlsplit(self.path).path, query)

        def _answer(self, path: str, query: str) -> None:
            fault = path.strip("/").split("/")[0]
            if fault in _REPLIES and FAULT_IRI in query:
                status, text = _REPLIES[fault]
                self._send(status, "text/plain", text)
                return
            try:
                result = store.query(query)
            except (SyntaxError, OSError, ValueError) as exc:
                self._send(400, "text/plain", f"Parse error: {exc}".encode())
                return
            if isinstance(result, ox.QueryTriples):
                self._send(200, "application/n-triples", result.serialize(format=ox.RdfFormat.N_TRIPLES) or b"")
                return
            body = result.serialize(format=ox.QueryResultsFormat.JSON) or b""
            self._send(200, "application/sparql-results+json", body)

        def _send(self, status: int, kind: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@contextmanager
def fault_endpoint(files: Sequence[Path]) -> Iterator[str]:
    """Serve ``files`` on a free loopback port; yields the base URL (add ``/sparql``, ``/timeout/sparql``...)."""
    store = ox.Store()
    for path in files:
        store.bulk_load(path=str(path), format=ox.RdfFormat.TURTLE)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(store))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()

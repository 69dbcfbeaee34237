"""The opener of every saga HTTP request: http and https only, no redirects, its socket recorded.

:class:`SocketRecorder` keeps the socket of a request's connection so the transport
(:mod:`saga_kgqa.kg.remote.http_transport`) can re-arm its timeout before every read and
shut it down when the deadline passes. :func:`opener_for` hands out one reusable opener
per thread.
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import os
import socket
import ssl
import threading
import urllib.request
from typing import Any, NamedTuple

#: Environment variables urllib reads for proxies (case as well: both spellings are read).
_PROXY_VARIABLES = tuple(
    spelling
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "request_method")
    for spelling in (name, name.upper())
)


class SocketRecorder:
    """Keeps the socket of the request's connection so reads can be re-armed and cut."""

    def __init__(self) -> None:
        self.sock: socket.socket | None = None
        self.deadline_fired = False
        self._lock = threading.Lock()

    def record(self, sock: socket.socket | None) -> None:
        """Keep the socket of the connection just made."""
        with self._lock:
            self.sock = sock

    def arm(self, seconds: float) -> None:
        """Set the socket's timeout to the time left (at least a millisecond: 0 would mean non-blocking)."""
        with self._lock:
            if self.sock is not None:
                self.sock.settimeout(max(seconds, 0.001))

    def fire(self) -> None:
        """Watchdog: the deadline has passed; wake any blocked read by shutting the socket down."""
        with self._lock:
            self.deadline_fired = True
            if self.sock is not None:
                # Already closed means nothing is blocked on it.
                with contextlib.suppress(OSError):
                    self.sock.shutdown(socket.SHUT_RDWR)


class _RecordingHTTPConnection(http.client.HTTPConnection):
    def __init__(self, host: str, *, recorder: SocketRecorder, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self._recorder = recorder

    def connect(self) -> None:
        super().connect()
        self._recorder.record(self.sock)


class _RecordingHTTPSConnection(_RecordingHTTPConnection, http.client.HTTPSConnection):
    # The method order puts HTTPSConnection.connect under the recording one: the TLS socket is recorded.
    pass


class _RecordingHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, recorder: SocketRecorder) -> None:
        super().__init__()
        self.recorder = recorder

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        # do_open forwards extra keyword arguments to the connection class; typeshed's
        # protocol for that class does not list them.
        return self.do_open(_RecordingHTTPConnection, req, recorder=self.recorder)  # type: ignore[arg-type]


@functools.cache
def _default_ssl_context() -> ssl.SSLContext:
    """One verifying TLS context per process: building it loads the CA store (about 60 ms), once per request before."""
    return ssl.create_default_context()


class _RecordingHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, recorder: SocketRecorder) -> None:
        self._ssl_context = _default_ssl_context()
        super().__init__(context=self._ssl_context)
        self.recorder = recorder

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(
            _RecordingHTTPSConnection,  # type: ignore[arg-type]  # see _RecordingHTTPHandler.http_open
            req,
            context=self._ssl_context,
            recorder=self.recorder,
        )


def _build_opener(
    recorder: SocketRecorder,
) -> tuple[urllib.request.OpenerDirector, _RecordingHTTPHandler, _RecordingHTTPSHandler]:
    """An opener for http and https only, that follows no redirect.

    ``build_opener`` would add ``HTTPRedirectHandler`` (any host, any scheme, a POST re-sent
    as GET) and handlers for ftp, file and data URLs. Here a 3xx falls through to the
    default error handler and comes back as an ``HTTPError`` reply. Same-origin redirects
    are not followed either: a SPARQL endpoint that redirects is misconfigured or moved,
    the replay cache is keyed on the configured URL, and a POST re-sent as GET changes the
    request; the operator can configure the new URL (the error names it).
    """
    opener = urllib.request.OpenerDirector()
    plain, tls = _RecordingHTTPHandler(recorder), _RecordingHTTPSHandler(recorder)
    for handler in (
        urllib.request.ProxyHandler(),  # the operator's proxy settings, as before
        plain,
        tls,
        urllib.request.HTTPDefaultErrorHandler(),
        urllib.request.HTTPErrorProcessor(),
    ):
        opener.add_handler(handler)
    return opener, plain, tls


class _Cached(NamedTuple):
    proxy_settings: tuple[str | None, ...]
    opener: urllib.request.OpenerDirector
    plain: _RecordingHTTPHandler
    tls: _RecordingHTTPSHandler


_PER_THREAD = threading.local()


def opener_for(recorder: SocketRecorder) -> urllib.request.OpenerDirector:
    """This thread's opener (see :func:`_build_opener`), its connections reporting to ``recorder``.

    Building an opener took about 0.5 ms (the proxy handler scans the environment, and
    ``add_handler`` introspects every handler), a twentieth of a loopback Virtuoso query.
    One per thread is reused: a request runs on one thread from start to end, so setting
    the recorder here cannot race another request. A change of the proxy variables
    builds a new one, so the operator's proxy settings are followed as before.
    """
    proxy_settings = tuple(os.environ.get(name) for name in _PROXY_VARIABLES)
    cached: _Cached | None = getattr(_PER_THREAD, "cached", None)
    if cached is None or cached.proxy_settings != proxy_settings:
        cached = _Cached(proxy_settings, *_build_opener(recorder))
        _PER_THREAD.cached = cached
    cached.plain.recorder = recorder
    cached.tls.recorder = recorder
    return cached.opener

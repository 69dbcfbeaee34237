"""Serve one HTTP face: its port bound, its perimeter said at start, then uvicorn on the bound socket."""

from __future__ import annotations

import errno
import socket
import sys

import uvicorn

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.guard.sparql_grammar import expect_many_parses
from saga_kgqa.serve.memory import IdleTrim, WorkerThreads
from saga_kgqa.serve.perimeter import ASGIApp, Perimeter


def serve_face(
    app: ASGIApp, perimeter: Perimeter, bind: str, port: int, *, path: str = "/", worker_threads: int | None = None
) -> None:
    """Serve ``app`` behind ``perimeter`` on ``bind:port``, saying who may connect on stderr first.

    With ``worker_threads``, the event loop's default worker-thread pool holds that many at once
    (:class:`~saga_kgqa.serve.memory.WorkerThreads`); else anyio's default (40).

    Raises:
        ConfigurationError: The port cannot be had (in use, privileged, or the address is not this machine's).
    """
    sock = listening_socket(bind, port)  # a busy port is one line (exit 2) before anything is said
    sys.stderr.write(perimeter.notice() + "\n")
    expect_many_parses()  # the guard's faster grammar is built at the first query, not mid-burst at the 48th
    served: ASGIApp = IdleTrim(perimeter.wrap(app))
    if worker_threads is not None:
        served = WorkerThreads(served, worker_threads)
    serve_http(served, bind, sock, path=path)


def listening_socket(bind: str, port: int) -> socket.socket:
    """A socket bound to ``bind:port`` (0: a free port) and listening.

    Raises:
        ConfigurationError: The bind failed; the message names the address and what to do, in one line.
    """
    sock = socket.socket(socket.AF_INET6 if ":" in bind else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    host = f"[{bind}]" if ":" in bind else bind
    try:
        sock.bind((bind, port))
        # Listening before the URL is printed: a client that connects at once waits in the backlog, never refused.
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            why = "is in use (another server listens there): choose another --port, or --port 0 for a free one"
        elif exc.errno == errno.EACCES:
            why = "is not allowed to this user (a privileged port): choose a --port above 1023"
        elif exc.errno == errno.EADDRNOTAVAIL:
            why = "is not an address of this machine: check --bind"
        else:
            why = f"cannot be bound ({exc.strerror or type(exc).__name__})"
        raise ConfigurationError(f"{host}:{port} {why}") from None
    return sock


def serve_http(app: object, bind: str, sock: socket.socket, *, path: str = "/") -> None:
    """Serve an ASGI app with uvicorn on a listening socket, saying the URL on stderr."""
    host = f"[{bind}]" if ":" in bind else bind
    sys.stderr.write(f"serving http://{host}:{sock.getsockname()[1]}{path}\n")
    sys.stderr.flush()
    config = uvicorn.Config(app, log_level="warning", lifespan="on")  # type: ignore[arg-type]
    uvicorn.Server(config).run(sockets=[sock])

"""Serve one HTTP face: its perimeter checked and said at start, then uvicorn on the bound socket."""

from __future__ import annotations

import socket
import sys

import uvicorn

from saga_kgqa.serve.perimeter import ASGIApp, Perimeter


def serve_face(app: ASGIApp, perimeter: Perimeter, bind: str, port: int, *, path: str = "/") -> None:
    """Serve ``app`` behind ``perimeter`` on ``bind:port``, saying who may connect on stderr first."""
    sys.stderr.write(perimeter.notice() + "\n")
    serve_http(perimeter.wrap(app), bind, port, path=path)


def serve_http(app: object, bind: str, port: int, *, path: str = "/") -> None:
    """Serve an ASGI app with uvicorn on ``bind:port`` (0: a free port), saying the URL on stderr once bound."""
    sock = socket.socket(socket.AF_INET6 if ":" in bind else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((bind, port))
    # Listening before the URL is printed: a client that connects at once waits in the backlog, never refused.
    sock.listen(128)
    host = f"[{bind}]" if ":" in bind else bind
    sys.stderr.write(f"serving http://{host}:{sock.getsockname()[1]}{path}\n")
    sys.stderr.flush()
    config = uvicorn.Config(app, log_level="warning", lifespan="on")  # type: ignore[arg-type]
    uvicorn.Server(config).run(sockets=[sock])

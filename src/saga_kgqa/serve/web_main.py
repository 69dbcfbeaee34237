"""The body of ``saga serve web``: runs over the operator's catalog, then the page on loopback."""

from __future__ import annotations

from pathlib import Path

from saga_kgqa.graph.persistence import default_checkpoint_path
from saga_kgqa.serve.mcp_server import serve_http
from saga_kgqa.serve.web import build_app
from saga_kgqa.serve.web_runs import WebRuns
from saga_kgqa.sources.catalog import Catalog


def run_web(*, checkpoints: Path | None, bind: str, port: int) -> None:
    """Serve until stopped.

    Raises:
        ConfigurationError: The catalog or the checkpoint store is unusable.
    """
    runs = WebRuns(Catalog.from_env(), checkpoints or default_checkpoint_path())
    try:
        loopback = bind in ("127.0.0.1", "localhost", "::1")
        serve_http(build_app(runs, allowed_hosts=None if loopback else ["*"]), bind, port)
    finally:
        runs.close()

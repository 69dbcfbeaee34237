"""The body of ``saga serve web``: runs over the operator's catalog, then the page on loopback."""

from __future__ import annotations

import sys
from pathlib import Path

from saga_kgqa.config.catalog import Catalog
from saga_kgqa.runs.persistence import default_checkpoint_path
from saga_kgqa.serve.http_face import serve_face
from saga_kgqa.serve.web.app import build_app, perimeter_for
from saga_kgqa.serve.web.runs import WebRuns


def run_web(*, checkpoints: Path | None, bind: str, port: int) -> None:
    """Serve until stopped.

    Raises:
        ConfigurationError: The catalog or the checkpoint store is unusable.
    """
    perimeter = perimeter_for(bind)  # a non-loopback bind without a token fails before anything loads
    runs = WebRuns(Catalog.from_env(), checkpoints or default_checkpoint_path())
    if not runs.model_ready:
        sys.stderr.write("no model configured: the page opens earlier runs but cannot start new ones\n")
    try:
        serve_face(build_app(runs), perimeter, bind, port)
    finally:
        runs.close()

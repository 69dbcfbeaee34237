"""Deployment settings read from the environment (``SAGA_`` prefix).

Per-run knobs are explicit arguments; these are the operator's defaults. An explicit
value always beats the environment, which beats the built-in default.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

DEFAULT_DATA_DIR = Path("../shared/data")


def data_dir(explicit: Path | None = None) -> Path:
    """Return the third-party data directory: explicit, else ``$SAGA_DATA_DIR``, else ``../shared/data``."""
    if explicit is not None:
        return explicit
    env = os.environ.get("SAGA_DATA_DIR")
    return Path(env) if env else DEFAULT_DATA_DIR


def example_graph_path() -> Path:
    """Return the path of the example graph shipped with the package."""
    ref = resources.files("saga_kgqa") / "example_graph" / "space_exploration.ttl"
    return Path(str(ref))

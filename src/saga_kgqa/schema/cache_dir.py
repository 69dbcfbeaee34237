"""Where the survey cache lives: the directory surveys, saved schema indexes and name indexes share.

Kept apart from :mod:`saga_kgqa.schema.survey_cache` so a command that only opens a saved schema or
name index (``saga search`` on a store) learns the directory without importing the surveyor and its
models (about 15 ms of ``saga search``'s start, issue 39).
"""

from __future__ import annotations

import os
from pathlib import Path

#: Environment variable naming the directory of cached surveys.
SURVEY_DIR_ENV = "SAGA_SURVEY_DIR"


def default_survey_dir() -> Path:
    """``$SAGA_SURVEY_DIR``, else ``surveys`` under ``$XDG_CACHE_HOME/saga-kgqa`` (``~/.cache``)."""
    explicit = os.environ.get(SURVEY_DIR_ENV, "").strip()
    if explicit:
        return Path(explicit)
    cache_home = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(cache_home) / "saga-kgqa" / "surveys"

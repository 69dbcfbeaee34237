"""Skip a test whose tool is missing, except under ``CI=true``, where a missing tool is a failure."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing(reason: str) -> NoReturn:
    """Skip with ``reason``; fail instead when ``CI=true`` (CI must have every tool its tests need)."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (CI=true: a test that needs it must not skip)")
    pytest.skip(reason)

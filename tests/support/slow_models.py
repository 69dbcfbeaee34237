"""A test-only model factory whose every call takes a while: long ``kg_ask`` runs for progress and cancel tests.

Like :func:`tests.support.studio_models.scripted_factory` (``SAGA_TEST_SCRIPT``), but each
answer comes after ``SAGA_TEST_DELAY`` seconds, as a real model's would.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from tests.support.scripted_model import ScriptedChatModel
from tests.support.studio_models import SCRIPT_ENV, script_item

DELAY_ENV = "SAGA_TEST_DELAY"

_model: ScriptedChatModel | None = None
_lock = threading.Lock()


def _slow(item: Any, delay_s: float) -> Any:
    def reply(_messages: list[Any]) -> Any:
        time.sleep(delay_s)
        return item

    return reply


def slow_scripted_factory(context: object, role: str) -> ScriptedChatModel:
    """The process's scripted model, each answer after ``$SAGA_TEST_DELAY`` seconds."""
    global _model
    with _lock:
        if _model is None:
            delay = float(os.environ.get(DELAY_ENV, "1"))
            items = json.loads(Path(os.environ[SCRIPT_ENV]).read_text())
            _model = ScriptedChatModel([_slow(script_item(item), delay) for item in items])
        return _model

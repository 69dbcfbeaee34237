"""A model that answers only once a test opens its gate: it holds runs live, so caps and cancels can be tested.

``SAGA_MODEL_FACTORY=tests.support.gated_models:gated_factory``; every call waits on :data:`GATE`
(at most :data:`WAIT_S`), then asks for the ``stop`` action (the answer-type call reads it as no prior).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from tests.support.scripted_model import ScriptedChatModel
from tests.support.studio_models import SCRIPT_ENV, script_item

GATE = threading.Event()
WAIT_S = 30.0
#: Model calls under way now (waiting at the gate).
WAITING = threading.Semaphore(0)


class GatedChatModel(BaseChatModel):
    """Waits at the gate, then answers ``stop``."""

    @property
    def _llm_type(self) -> str:
        return "gated"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> GatedChatModel:  # type: ignore[override]
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        WAITING.release()
        GATE.wait(WAIT_S)
        call = {"name": "stop", "args": {}, "id": "call-stop", "type": "tool_call"}
        return ChatResult(generations=[ChatGeneration(message=AIMessage("", tool_calls=[call]))])


def gated_factory(context: object, role: str) -> GatedChatModel:
    """A gated model for every role."""
    return GatedChatModel()


class SlowScriptedModel(ScriptedChatModel):
    """A scripted model that takes ``$SAGA_TEST_DELAY_S`` seconds per call, so a page can watch a run in progress."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        time.sleep(float(os.environ.get("SAGA_TEST_DELAY_S", "1")))
        return super()._generate(messages, stop, run_manager, **kwargs)


_slow: SlowScriptedModel | None = None
_slow_lock = threading.Lock()


def slow_scripted_factory(context: object, role: str) -> SlowScriptedModel:
    """The process's slow scripted model (from ``$SAGA_TEST_SCRIPT``, as :mod:`tests.support.studio_models`)."""
    global _slow
    with _slow_lock:
        if _slow is None:
            items = json.loads(Path(os.environ[SCRIPT_ENV]).read_text())
            _slow = SlowScriptedModel([script_item(item) for item in items])
        return _slow

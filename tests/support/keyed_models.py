"""A scripted model for many runs at once, in any face's process: each run's script is picked by its question.

Every question carries a case key (``… [case:cli/final_empty]``); ``$SAGA_TEST_SCRIPTS`` names a
JSON file mapping each key to its script (items as :func:`tests.support.studio_models.script_item`
reads them). Each model call finds the key in the prompt and answers with that key's next item, so
one server process (``saga mcp``, ``langgraph dev``, the web page) can run every case of a fault
matrix. Register it as a catalog model (``factory = "tests.support.keyed_models:keyed_factory"``).
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from tests.support.scripted_model import ScriptedChatModel, ScriptExhausted
from tests.support.studio_models import script_item

SCRIPTS_ENV = "SAGA_TEST_SCRIPTS"
CASE = re.compile(r"\[case:([A-Za-z0-9_./-]+)\]")


def case_question(text: str, key: str) -> str:
    """A question carrying its case key."""
    return f"{text} [case:{key}]"


class KeyedScriptedModel(ScriptedChatModel):
    """Answers each call from the script of the case its prompt names."""

    def __init__(self, scripts: dict[str, list[Any]]) -> None:
        super().__init__([])
        object.__setattr__(self, "_scripts", {key: [script_item(i) for i in items] for key, items in scripts.items()})
        object.__setattr__(self, "_cursor", {})
        object.__setattr__(self, "_lock", threading.Lock())

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text = "\n".join(str(m.content) for m in messages)
        found = CASE.search(text)
        if found is None:
            raise ScriptExhausted("the prompt names no [case:KEY]")
        key = found.group(1)
        with self._lock:  # type: ignore[attr-defined]
            script = self._scripts.get(key)  # type: ignore[attr-defined]
            if script is None:
                raise ScriptExhausted(f"no script for case {key!r}")
            position = self._cursor.get(key, 0)  # type: ignore[attr-defined]
            self._cursor[key] = position + 1  # type: ignore[attr-defined]
        if position >= len(script):
            raise ScriptExhausted(f"case {key!r}: call {position + 1} has no scripted answer")
        item = script[position]
        message = AIMessage(item) if isinstance(item, str) else item
        return ChatResult(generations=[ChatGeneration(message=message)])


_model: KeyedScriptedModel | None = None
_guard = threading.Lock()


def keyed_factory(context: object, role: str) -> KeyedScriptedModel:
    """The process's keyed model, for every role (built from ``$SAGA_TEST_SCRIPTS`` on first use)."""
    global _model
    with _guard:
        if _model is None:
            _model = KeyedScriptedModel(json.loads(Path(os.environ[SCRIPTS_ENV]).read_text(encoding="utf-8")))
        return _model

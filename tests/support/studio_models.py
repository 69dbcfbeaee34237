"""A test-only model factory for ``langgraph dev``: one scripted model per server process.

The server is started with ``SAGA_MODEL_FACTORY=tests.support.studio_models:scripted_factory``
and ``SAGA_TEST_SCRIPT`` set to a JSON file holding the script (see :func:`script_item`),
so the real graph module, unchanged, runs the scripted conversation.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from tests.support.scripted_model import ScriptedChatModel, ScriptItem

SCRIPT_ENV = "SAGA_TEST_SCRIPT"

_model: ScriptedChatModel | None = None
_lock = threading.Lock()


def script_item(data: dict[str, Any] | str) -> ScriptItem:
    """A script entry from JSON: a string reply, or ``{"tool": name, "args": {...}}`` for a tool call.

    With ``"chosen": true`` each ``{chosen}`` in the arguments is the entity the user chose when the run
    asked back (read off the prompt, as a model would), so a test can see the choice reach the final query.
    """
    if isinstance(data, str):
        return data
    if data.get("chosen"):
        return chosen_call(str(data["tool"]), dict(data.get("args", {})))
    call = {"name": data["tool"], "args": data.get("args", {}), "id": f"call-{data['tool']}", "type": "tool_call"}
    return AIMessage(data.get("thought", ""), tool_calls=[call])


def chosen_call(tool: str, args: dict[str, str]) -> Callable[[list[BaseMessage]], Any]:
    """A tool call whose ``{chosen}`` placeholders are filled with the id the prompt says the user chose."""

    def reply(messages: list[BaseMessage]) -> AIMessage:
        said = re.findall(r"Use (\S+) for '", "\n".join(str(m.content) for m in messages))
        chosen = said[-1] if said else "<urn:nothing-chosen>"
        filled = {name: value.replace("{chosen}", chosen) for name, value in args.items()}
        return AIMessage("", tool_calls=[{"name": tool, "args": filled, "id": f"call-{tool}", "type": "tool_call"}])

    return reply


def scripted_factory(context: object, role: str) -> ScriptedChatModel:
    """The process's scripted model, for every role (built from ``$SAGA_TEST_SCRIPT`` on first use)."""
    global _model
    with _lock:
        if _model is None:
            items = json.loads(Path(os.environ[SCRIPT_ENV]).read_text())
            _model = ScriptedChatModel([script_item(item) for item in items])
        return _model

"""A model factory for CLI tests: per role, a chat model that replays each question's gold query.

``saga eval ablate`` builds its models from ``SAGA_MODEL_FACTORY``; pointing that at
:func:`gold_replay_factory` with ``SAGA_TEST_GOLD`` naming a JSON object ``{question: sparql}``
gives every variant the same deterministic agent: execute the question's gold query, then stop.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from tests.support.scripted_model import ScriptedChatModel, answer_type, tool_call

GOLD_ENV = "SAGA_TEST_GOLD"


class GoldReplayChatModel(ScriptedChatModel):
    """Finds the question in its prompt; executes its gold query unless the history already shows it, then stops."""

    gold: dict[str, str] = {}  # noqa: RUF012 - a pydantic field, copied per instance

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.prompts.append(list(messages))
        text = "\n".join(str(m.content) for m in messages)
        asked = max((q for q in self.gold if q in text), key=len, default=None)
        if asked is None:
            raise AssertionError("no known question in the prompt")
        sparql = self.gold[asked]
        reply: AIMessage = tool_call("stop") if sparql[:60] in text else tool_call("execute", sparql=sparql)
        return ChatResult(generations=[ChatGeneration(message=reply)])


def gold_replay_factory(context: object, role: str) -> ScriptedChatModel:
    """The answer-type role gets a fixed reply; every other role replays the gold."""
    if role == "answer_type":
        return ScriptedChatModel([answer_type("thing")] * 1000)
    gold = json.loads(Path(os.environ[GOLD_ENV]).read_text(encoding="utf-8"))
    return GoldReplayChatModel([], gold=gold)

"""A model factory for CLI tests: per role, a chat model that replays each question's gold query.

``saga eval ablate`` builds its models from ``SAGA_MODEL_FACTORY``; pointing that at
:func:`gold_replay_factory` with ``SAGA_TEST_GOLD`` naming a JSON object ``{question: sparql}``
gives every variant the same deterministic agent: execute the question's gold query, then stop.
:func:`mars_replay_factory` does the same for the MARS graph (names the question's capitalised
words as mentions, writes the gold query, accepts it) and records every MARS prompt with the
context of the run that sent it in :data:`MARS_PROMPTS`, so a test can see what each variant showed.
"""

from __future__ import annotations

import json
import os
import re
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


#: Every MARS prompt of this process: (role, the run's context, the messages).
MARS_PROMPTS: list[tuple[str, Any, list[BaseMessage]]] = []

_MENTION = re.compile(r"(?:[A-Z][\w.]*)(?: [A-Z][\w.]*)*")


class MarsReplayChatModel(ScriptedChatModel):
    """One MARS role: link the question's capitalised words, write the gold query, or accept the result."""

    gold: dict[str, str] = {}  # noqa: RUF012 - a pydantic field, copied per instance
    role: str = ""
    run_context: Any = None

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.prompts.append(list(messages))
        MARS_PROMPTS.append((self.role, self.run_context, list(messages)))
        text = "\n".join(str(m.content) for m in messages)
        asked = max((q for q in self.gold if q in text), key=len, default=None)
        if asked is None:
            raise AssertionError("no known question in the prompt")
        if self.role == "mars_link":
            # Capitalised runs after the first word, then their words: "Ms. Brant" names "Ms. Brant", "Brant".
            runs = _MENTION.findall(asked.partition(" ")[2])
            words = [w for run in runs for w in run.split() if len(run.split()) > 1 and not w.endswith(".")]
            mentions = list(dict.fromkeys([*runs, *words]))
            reply = json.dumps({"entities": mentions})
        elif self.role == "mars_reason":
            reply = f"SPARQL:\n```sparql\n{self.gold[asked]}\n```"
        else:
            reply = "CORRECT"
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])


def mars_replay_factory(context: object, role: str) -> ScriptedChatModel:
    """The MARS roles replay the gold (and record their prompts); any other role is SAGA's gold replay."""
    if not role.startswith("mars_"):
        return gold_replay_factory(context, role)
    gold = json.loads(Path(os.environ[GOLD_ENV]).read_text(encoding="utf-8"))
    return MarsReplayChatModel([], gold=gold, role=role, run_context=context)

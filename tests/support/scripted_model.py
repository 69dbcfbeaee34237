"""A scripted chat model for driving the agent graph without an LLM.

It answers each call with the next item of its script, records every prompt it
receives (so tests can assert on what the model was shown), counts its calls, and
accepts ``bind_tools`` (recording the tool names). Build a fresh one per run: the
script is an iterator.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

ScriptItem = AIMessage | str | BaseException | Callable[[list[BaseMessage]], str]


class ScriptExhausted(AssertionError):
    """The graph made more model calls than the script has answers."""


class ScriptedChatModel(GenericFakeChatModel):
    """Answers from a script; records prompts and bound tools."""

    script: list[Any] = Field(default_factory=list)
    prompts: list[list[BaseMessage]] = Field(default_factory=list)
    bound_tools: list[str] = Field(default_factory=list)
    disable_streaming: bool = True

    def __init__(self, script: Iterable[ScriptItem], **kwargs: Any) -> None:
        super().__init__(messages=iter(()), script=list(script), **kwargs)

    @property
    def calls(self) -> int:
        """How many times the model was called."""
        return len(self.prompts)

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        self.bound_tools = [_tool_name(tool) for tool in tools]
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        position = len(self.prompts)
        self.prompts.append(list(messages))
        if position >= len(self.script):
            raise ScriptExhausted(f"model call {position + 1} has no scripted answer ({len(self.script)} scripted)")
        item = self.script[position]
        if isinstance(item, BaseException):
            raise item
        if callable(item):
            # A reply computed from the prompt (a pattern number the model reads off the prompt).
            item = item(list(messages))
        message = AIMessage(item) if isinstance(item, str) else item
        return ChatResult(generations=[ChatGeneration(message=message)])

    def prompt_text(self, call: int) -> str:
        """Everything the model was shown in one call (0-based), joined."""
        return "\n".join(str(m.content) for m in self.prompts[call])

    def all_prompts(self) -> str:
        """Every prompt of every call, joined."""
        return "\n=====\n".join(self.prompt_text(i) for i in range(self.calls))


def tool_call(name: str, thought: str = "", **args: Any) -> AIMessage:
    """A reply that calls one tool natively."""
    return AIMessage(thought, tool_calls=[{"name": name, "args": args, "id": f"call-{name}", "type": "tool_call"}])


def answer_type(label: str, type_id: str = "") -> str:
    """A reply to the answer-type prompt."""
    return json.dumps({"answer_type_label": label, "answer_type_id": type_id})


def text_action(name: str, argument: str, thought: str = "") -> list[str]:
    """The two replies of a text-mode step: the free-text action, then the parsing call's JSON."""
    free = f"Thought: {thought}\nAction: {name}({argument})"
    parsed = json.dumps({"thought": thought, "action_name": name, "action_argument": argument})
    return [free, parsed]


def model_factory(model: ScriptedChatModel) -> Callable[..., ScriptedChatModel]:
    """A graph model factory that returns the same scripted model for every role."""
    return lambda _context, _role: model


def _tool_name(tool: Any) -> str:
    if isinstance(tool, dict):
        function = tool.get("function", {})
        return str(function.get("name", tool.get("name", "")))
    return str(getattr(tool, "name", tool))

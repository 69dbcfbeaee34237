"""The chat model the agent calls: ChatOpenAI that keeps a reasoning model's text and waits for a slot.

OpenAI-compatible servers (vLLM, DeepSeek, llama.cpp) return a reasoning model's thinking in a field
ChatOpenAI drops; traces keep it. Each request also takes a slot of the process-wide cap on requests in
flight to one model at one server (:mod:`saga_kgqa.model_gate`).
"""

from __future__ import annotations

from typing import Any

import openai
from langchain_core.outputs import ChatResult
from langchain_openai import ChatOpenAI

from saga_kgqa.model_gate import model_slot


class ReasoningChatOpenAI(ChatOpenAI):
    """ChatOpenAI that keeps the reasoning text of reasoning models served by vLLM and friends.

    ChatOpenAI targets OpenAI's API and drops the ``reasoning_content`` (older vLLM,
    DeepSeek) or ``reasoning`` (newer vLLM) message field; this keeps it in
    ``additional_kwargs["reasoning_content"]`` so traces show why the model acted.
    Non-streaming responses only, which is how the agent calls its models.

    ``max_concurrent_requests`` caps requests in flight to this model at this server
    across the process (see :mod:`saga_kgqa.model_gate`).
    """

    max_concurrent_requests: int | None = None

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        with model_slot(self.openai_api_base or "openai", self.model_name, self.max_concurrent_requests):
            return super()._generate(*args, **kwargs)

    def _create_chat_result(
        self,
        response: dict[str, Any] | openai.BaseModel,
        generation_info: dict[str, Any] | None = None,
    ) -> ChatResult:
        result = super()._create_chat_result(response, generation_info)
        raw = response if isinstance(response, dict) else response.model_dump(warnings=False)
        for choice, generation in zip(raw.get("choices") or [], result.generations, strict=False):
            message = choice.get("message") or {}
            reasoning = message.get("reasoning_content") or message.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                generation.message.additional_kwargs["reasoning_content"] = reasoning
        return result

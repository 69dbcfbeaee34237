"""Chat models for the agent: ChatOpenAI against OpenAI or any OpenAI-compatible server.

One :class:`~saga_kgqa.config.model_settings.ModelSettings` (a configuration home, in ``config/``)
names the model, the server and the key (explicit value > ``SAGA_*`` environment > ``OPENAI_*``
environment > default). :func:`chat_model_for`
turns it into a chat model configured for one prompt role with the decoding settings of
the paper's Appendix F, and the portability workarounds that vLLM, Ollama and llama.cpp
need (``docs/ecosystem-notes.md`` §4):

* the token cap is sent twice, as ``max_completion_tokens`` (what ChatOpenAI sends) and
  as ``max_tokens`` in the request body, because llama.cpp ignores the former;
* the answer-type and parse replies are read as JSON from plain text: those requests
  carry no tools and no ``response_format``, because llama.cpp rejects
  ``response_format=json_schema`` (only the controller's requests carry tools, in native
  tool-calling mode); :func:`with_structured_output` binds a schema through function
  calling for callers that want one, and the agent itself does not use it;
* reasoning text (``reasoning_content`` or ``reasoning``) that ChatOpenAI drops is kept
  in ``additional_kwargs["reasoning_content"]`` (:class:`~saga_kgqa.reasoning_chat.ReasoningChatOpenAI`).

The client retries nothing by itself: the graph's LLM nodes retry transient provider
errors only (connection, timeout, 429, 5xx) through their node ``RetryPolicy``, so a
retry is visible to LangGraph and a run that still fails stays resumable. A run with no model configured fails with
:class:`~saga_kgqa.config.model_settings.ModelNotConfigured`, which says exactly what to set.

:class:`ConfiguredModelFactory` is the graph's model factory (``(context, role) -> chat
model``): it reads the model and server from the explicit settings, then the run's
context, then the environment. ``SAGA_MODEL_FACTORY=package.module:callable`` replaces
ChatOpenAI by any factory of the same signature; tests use it to serve a scripted model
from ``langgraph dev``, and users can plug in another provider the same way.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable
from pydantic import BaseModel, SecretStr

from saga_kgqa.config.model_settings import ModelSettings
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.reasoning_chat import ReasoningChatOpenAI

#: Sent as the key when a local server (vLLM, Ollama, llama.cpp) needs none; the OpenAI client requires one.
PLACEHOLDER_API_KEY = "EMPTY"

StructuredT = TypeVar("StructuredT", bound=BaseModel)


class PromptRole(StrEnum):
    """The prompts the agent sends; each has its own decoding settings."""

    #: F.1: predict the expected answer type once per question.
    ANSWER_TYPE = "answer_type"
    #: F.2: pick the next action with native tool calling.
    CONTROLLER = "controller"
    #: F.2 in text-action mode: free text ``Thought``/``Action``, cut at the observation.
    CONTROLLER_TEXT = "controller_text"
    #: F.2's second, lightweight call that parses free text into an action.
    ACTION_PARSER = "parse"
    #: F.3: prune an untyped entity's neighbourhood.
    PRUNE = "prune"
    #: MARS: name the question's entities (and, augmented, their expected types).
    MARS_LINK = "mars_link"
    #: MARS: write SPARQL from the patterns, or pick patterns to expand.
    MARS_REASON = "mars_reason"
    #: MARS: check the executed query's result and rewrite it if needed.
    MARS_VERIFY = "mars_verify"


@dataclass(frozen=True)
class Decoding:
    """Decoding settings of one prompt role.

    Attributes:
        temperature: Sampling temperature.
        max_tokens: Cap on generated tokens.
        top_p: Nucleus sampling mass, or ``None`` for the server's default.
        stop: Stop sequences.
    """

    temperature: float
    max_tokens: int
    top_p: float | None = None
    stop: tuple[str, ...] = ()


#: The paper caps every response at 2,048 tokens (Implementation Details) where Appendix F names no cap.
PAPER_MAX_TOKENS = 2048

#: Appendix F: F.1 (temperature 0, 100 tokens); F.2 (temperature 1.0, top-p 0.9, 700 tokens, stop
#: "\nObservation" in text mode only, since a tool-calling turn has no observation to run into);
#: F.2's parse call (temperature 0); F.3 (greedy, the paper's global cap).
ROLE_DECODING: Mapping[PromptRole, Decoding] = {
    PromptRole.ANSWER_TYPE: Decoding(temperature=0.0, max_tokens=100),
    PromptRole.CONTROLLER: Decoding(temperature=1.0, max_tokens=700, top_p=0.9),
    PromptRole.CONTROLLER_TEXT: Decoding(temperature=1.0, max_tokens=700, top_p=0.9, stop=("\nObservation",)),
    PromptRole.ACTION_PARSER: Decoding(temperature=0.0, max_tokens=PAPER_MAX_TOKENS),
    PromptRole.PRUNE: Decoding(temperature=0.0, max_tokens=PAPER_MAX_TOKENS),
    # MARS names no decoding settings: greedy, under the same global cap.
    PromptRole.MARS_LINK: Decoding(temperature=0.0, max_tokens=300),
    PromptRole.MARS_REASON: Decoding(temperature=0.0, max_tokens=PAPER_MAX_TOKENS),
    PromptRole.MARS_VERIFY: Decoding(temperature=0.0, max_tokens=PAPER_MAX_TOKENS),
}


class ModelContext(Protocol):
    """What a model factory reads from a run's context (see :class:`saga_kgqa.config.context.SagaContext`)."""

    @property
    def model(self) -> str:
        """Model name, or ``""`` when the context names none."""

    @property
    def base_url(self) -> str | None:
        """API root of an OpenAI-compatible server."""

    @property
    def tool_calling(self) -> str:
        """``native`` tool calls, or ``text`` actions."""


#: The graph's model factory signature: the chat model for a run's context and a role name.
ModelFactory = Callable[[Any, str], BaseChatModel]


def load_factory(spec: str) -> ModelFactory:
    """Import a ``package.module:callable`` model factory (called as ``factory(context, role)``).

    Raises:
        ConfigurationError: The spec is malformed, or names nothing callable.
    """
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ConfigurationError(f"model factory {spec!r} must look like 'package.module:callable'")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(f"model factory module {module_name!r} cannot be imported: {exc}") from exc
    for part in attribute.split("."):
        target = getattr(target, part, None)
    if not callable(target):
        raise ConfigurationError(f"model factory {spec!r} names nothing callable")
    factory: ModelFactory = target
    return factory


def chat_model_for(role: PromptRole, settings: ModelSettings) -> BaseChatModel:
    """Build the chat model for one prompt role.

    Args:
        role: The prompt the model will answer; picks the decoding settings.
        settings: Which model, server and key.

    Raises:
        ModelNotConfigured: The settings name no usable model.
    """
    settings.require_complete()
    decoding = ROLE_DECODING[role]
    extra_body: dict[str, Any] | None = None
    if not settings.is_openai:
        # llama.cpp ignores max_completion_tokens (what ChatOpenAI sends); OpenAI itself may reject both.
        extra_body = {"max_tokens": decoding.max_tokens}
    options: dict[str, Any] = {}
    if settings.reasoning_effort:
        options["reasoning_effort"] = settings.reasoning_effort
    if decoding.stop:
        options["stop"] = list(decoding.stop)
    if decoding.top_p is not None:
        options["top_p"] = decoding.top_p
    return ReasoningChatOpenAI(
        model=settings.model or "",
        base_url=settings.base_url,
        api_key=SecretStr(settings.api_key or PLACEHOLDER_API_KEY),
        temperature=decoding.temperature,
        max_completion_tokens=decoding.max_tokens,
        extra_body=extra_body,
        timeout=settings.timeout_s,
        # Retries belong to the graph's node policy (graph/builder.py), which retries only transient errors.
        max_retries=0,
        max_concurrent_requests=settings.max_concurrency,
        **options,
    )


def with_structured_output(model: BaseChatModel, schema: type[StructuredT]) -> Runnable[Any, Any]:
    """Bind ``schema`` as the model's structured output through function calling.

    Function calling works on OpenAI, vLLM, Ollama and llama.cpp, where the JSON-schema
    response format is not universally supported; keep ``schema`` flat and all-required.
    """
    return model.with_structured_output(schema, method="function_calling")


def prompt_role(role: str, tool_calling: str = "native") -> PromptRole:
    """The prompt role of a graph role name; the controller in text-action mode has its own.

    Raises:
        ConfigurationError: The role name is unknown.
    """
    try:
        resolved = PromptRole(role)
    except ValueError:
        known = ", ".join(r.value for r in PromptRole if r is not PromptRole.CONTROLLER_TEXT)
        raise ConfigurationError(f"unknown model role {role!r} (known: {known})") from None
    if resolved is PromptRole.CONTROLLER and tool_calling == "text":
        return PromptRole.CONTROLLER_TEXT
    return resolved


class ConfiguredModelFactory:
    """The graph's model factory: explicit settings > the run's context > the environment.

    Models are built once per settings and role, then reused across calls and runs.
    """

    def __init__(self, explicit: ModelSettings | None = None, *, environ: Mapping[str, str] | None = None) -> None:
        """Remember the explicit settings (command-line options, library arguments).

        Args:
            explicit: Values that beat the context and the environment; ``None`` fields fall through.
            environ: The environment to read (default: ``os.environ`` at call time).
        """
        self.explicit = explicit or ModelSettings()
        self._environ = environ
        self._models: dict[tuple[ModelSettings, PromptRole], BaseChatModel] = {}
        self._lock = threading.Lock()

    def settings_for(self, context: ModelContext | None) -> ModelSettings:
        """The settings a run uses: explicit, else the context's ``model``/``base_url``, else the environment."""
        explicit = self.explicit
        return ModelSettings.resolve(
            model=explicit.model or (context.model if context is not None else None) or None,
            base_url=explicit.base_url or (context.base_url if context is not None else None),
            api_key=explicit.api_key,
            factory=explicit.factory,
            environ=self._environ,
            timeout_s=explicit.timeout_s,
            reasoning_effort=explicit.reasoning_effort,
            max_concurrency=explicit.max_concurrency,
        )

    def __call__(self, context: ModelContext | None, role: str) -> BaseChatModel:
        """Return the chat model for ``role`` in a run with ``context``.

        Raises:
            ModelNotConfigured: No model is configured anywhere; the message says what to set.
            ConfigurationError: The role is unknown, or the custom factory cannot be loaded.
        """
        settings = self.settings_for(context)
        if settings.factory:
            return load_factory(settings.factory)(context, role)
        resolved = prompt_role(role, context.tool_calling if context is not None else "native")
        with self._lock:
            model = self._models.get((settings, resolved))
            if model is None:
                model = chat_model_for(resolved, settings)
                self._models[(settings, resolved)] = model
        return model

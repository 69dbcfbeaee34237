"""Chat models as the graph uses them: one factory per run and role, usage accounting, transient errors.

The graph never builds a provider client itself. :func:`~saga_kgqa.graph.builder.build_graph`
takes a :data:`ModelFactory` that returns a LangChain chat model for a run's context and
a role, so a caller can plug in ChatOpenAI (any OpenAI-compatible server) or, in tests,
a scripted model. Roles let the factory use the paper's settings per call (Appendix F:
answer type and parsing at temperature 0; the controller at its own temperature).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage

from saga_kgqa.config.context import SagaContext
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.state import TokenUsage

ModelRole = Literal["answer_type", "controller", "prune", "parse", "mars_link", "mars_reason", "mars_verify"]

#: Returns the chat model for a run's context and a role.
ModelFactory = Callable[[SagaContext, ModelRole], BaseChatModel]

_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
_SURROGATE = re.compile("[\ud800-\udfff]")


def no_model_configured(context: SagaContext, role: ModelRole) -> BaseChatModel:
    """The default factory: there is no model until the caller configures one.

    Raises:
        ConfigurationError: Always, saying what to configure.
    """
    raise ConfigurationError(
        f"no chat model is configured for the {role} call: pass build_graph(model_factory=...) "
        "(for example one that returns ChatOpenAI(model=..., base_url=...))"
    )


class EnvironmentModelFactory:
    """The default factory of :func:`~saga_kgqa.graph.builder.build_graph`: the CLI's model settings.

    ``SAGA_BASE_URL``, ``SAGA_MODEL``, ``SAGA_API_KEY`` / ``OPENAI_API_KEY``, ``SAGA_MODEL_FACTORY`` (and the
    run context's ``model`` / ``base_url``), read when a run first calls the model, exactly as ``saga ask`` reads them.
    """

    def __init__(self) -> None:
        """Read the environment at call time (a library may set it after building the graph)."""
        from saga_kgqa.models import ConfiguredModelFactory

        self._factory = ConfiguredModelFactory()

    def __call__(self, context: SagaContext, role: ModelRole) -> BaseChatModel:
        """The model for ``role``.

        Raises:
            ConfigurationError: Nothing is configured; the message says what to set, or what to pass.
        """
        from saga_kgqa.config.model_settings import ModelNotConfigured

        try:
            return self._factory(context, role)
        except ModelNotConfigured as exc:
            raise ConfigurationError(
                f"no chat model is configured for the {role} call: {exc.message}; "
                "or pass build_graph(model_factory=...) "
                "(for example one that returns ChatOpenAI(model=..., base_url=...))"
            ) from None


def invoke_model(model: Any, messages: Sequence[BaseMessage]) -> tuple[AIMessage, TokenUsage]:
    """Call a chat model (or a model with tools bound) and return its message and token usage.

    Raises:
        TypeError: The model returned something other than an AI message.
    """
    reply = model.invoke(list(messages))
    if not isinstance(reply, AIMessage):
        raise TypeError(f"the chat model returned {type(reply).__name__}, not an AIMessage")
    return _without_surrogates(reply), usage_of(reply)


def _without_surrogates(reply: AIMessage) -> AIMessage:
    """Replace lone surrogates (U+D800 to U+DFFF, from a broken JSON escape) in a reply with U+FFFD.

    Such a string cannot be encoded as UTF-8: kept in the conversation, it would make every
    later request to the provider fail, and a resumed run would fail the same way forever.
    Replaced, the text still shows the model what it wrote, and the guard refuses the query
    with a message instead.
    """
    fields = ("content", "tool_calls", "invalid_tool_calls", "additional_kwargs")
    if not any(_has_surrogate(getattr(reply, name)) for name in fields):
        return reply
    return reply.model_copy(update={name: _scrub(getattr(reply, name)) for name in fields})


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None
    if isinstance(value, dict):
        return any(_has_surrogate(key) or _has_surrogate(item) for key, item in value.items())
    if isinstance(value, list | tuple):
        return any(_has_surrogate(item) for item in value)
    return False


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_scrub(key): _scrub(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_scrub(item) for item in value)
    return value


def usage_of(message: AIMessage) -> TokenUsage:
    """The token usage a provider reported on a message (zeros when it reported none)."""
    usage = message.usage_metadata
    if usage is None:
        return TokenUsage()
    return TokenUsage(
        input_tokens=usage.get("input_tokens", 0),
        output_tokens=usage.get("output_tokens", 0),
        total_tokens=usage.get("total_tokens", 0),
    )


def message_text(message: BaseMessage) -> str:
    """The text of a message, joining text blocks when the content is a list."""
    content = message.content
    if isinstance(content, str):
        return content
    parts = [block if isinstance(block, str) else str(block.get("text", "")) for block in content]
    return "".join(parts)


def json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a model's reply (code fences and chatter around it are ignored)."""
    match = _JSON_OBJECT.search(text)
    if match is None:
        return None
    try:
        value = json.loads(match.group(0))
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def transient_provider_error(exc: BaseException) -> bool:
    """Whether a model call failed for a reason that a retry may fix (the node RetryPolicy's ``retry_on``).

    Connection failures, timeouts, rate limits and server-side 5xx errors are transient;
    authentication, bad requests and our own bugs are not, and are never retried.
    """
    try:
        import openai
    except ImportError:  # pragma: no cover - langchain-openai brings openai along
        return isinstance(exc, ConnectionError | TimeoutError)
    transient = (
        openai.APIConnectionError,  # includes APITimeoutError
        openai.RateLimitError,
        openai.InternalServerError,
        ConnectionError,
        TimeoutError,
    )
    return isinstance(exc, transient)

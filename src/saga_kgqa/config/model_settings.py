"""Which chat model a run calls, and how: :class:`ModelSettings` (explicit > ``SAGA_*`` > ``OPENAI_*`` > default).

The settings are data; the chat models built from them (decoding per prompt role, the portability
workarounds, the graph's model factory) are :mod:`saga_kgqa.models`'s.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from saga_kgqa.errors import ConfigurationError

#: Environment variables read for each setting, in order of precedence.
MODEL_ENV = ("SAGA_MODEL", "OPENAI_MODEL")
BASE_URL_ENV = ("SAGA_BASE_URL", "OPENAI_BASE_URL")
API_KEY_ENV = ("SAGA_API_KEY", "OPENAI_API_KEY")
FACTORY_ENV = "SAGA_MODEL_FACTORY"
REASONING_EFFORT_ENV = "SAGA_REASONING_EFFORT"
MODEL_CONCURRENCY_ENV = "SAGA_MODEL_CONCURRENCY"


class ModelNotConfigured(ConfigurationError):
    """No chat model is configured; the message says which settings to give."""


def _concurrency_env(environ: Mapping[str, str]) -> int | None:
    raw = environ.get(MODEL_CONCURRENCY_ENV)
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ConfigurationError(f"{MODEL_CONCURRENCY_ENV} must be a whole number, not {raw!r}") from None
    if value < 1:
        raise ConfigurationError(f"{MODEL_CONCURRENCY_ENV} must be at least 1")
    return value


def _first_env(names: tuple[str, ...], environ: Mapping[str, str]) -> str | None:
    for name in names:
        value = environ.get(name, "").strip()
        if value:
            return value
    return None


@dataclass(frozen=True)
class ModelSettings:
    """Which chat model to call and how.

    Attributes:
        model: Model name as the server knows it (``gpt-4o-mini``, ``openai/gpt-oss-120b``, ``llama3.1``).
        base_url: OpenAI-compatible API root (``http://host:8000/v1``); ``None`` means OpenAI itself.
        api_key: API key; local servers that need none get a placeholder.
        timeout_s: Per-request timeout in seconds.
        reasoning_effort: ``low``/``medium``/``high`` for reasoning models (gpt-oss), else ``None``.
        factory: ``package.module:callable`` model factory used instead of ChatOpenAI, or ``None``.
        max_concurrency: Requests to this model at this server allowed in flight at once,
            across the whole process (``SAGA_MODEL_CONCURRENCY``); ``None`` for no cap.
    """

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    timeout_s: float = 120.0
    reasoning_effort: str | None = None
    factory: str | None = None
    max_concurrency: int | None = None

    @classmethod
    def resolve(
        cls,
        *,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        factory: str | None = None,
        reasoning_effort: str | None = None,
        max_concurrency: int | None = None,
        environ: Mapping[str, str] | None = None,
        **options: Any,
    ) -> ModelSettings:
        """Combine explicit values with the environment: explicit > ``SAGA_*`` > ``OPENAI_*`` > default.

        Args:
            model: Explicit model name.
            base_url: Explicit API root.
            api_key: Explicit API key.
            factory: Explicit ``module:callable`` model factory.
            reasoning_effort: Explicit reasoning effort (``SAGA_REASONING_EFFORT`` otherwise).
            max_concurrency: Explicit cap on requests in flight (``SAGA_MODEL_CONCURRENCY`` otherwise).
            environ: The environment to read (default: ``os.environ``).
            **options: Other :class:`ModelSettings` fields, taken as given.
        """
        env = os.environ if environ is None else environ
        return cls(
            model=model or _first_env(MODEL_ENV, env),
            base_url=base_url or _first_env(BASE_URL_ENV, env),
            api_key=api_key or _first_env(API_KEY_ENV, env),
            factory=factory or _first_env((FACTORY_ENV,), env),
            reasoning_effort=reasoning_effort or _first_env((REASONING_EFFORT_ENV,), env),
            max_concurrency=max_concurrency or _concurrency_env(env),
            **options,
        )

    @property
    def is_openai(self) -> bool:
        """Whether requests go to OpenAI's own API (no base URL, or an ``openai.com`` host)."""
        if self.base_url is None:
            return True
        host = urlsplit(self.base_url).hostname or ""
        return host == "openai.com" or host.endswith(".openai.com")

    def describe(self) -> str:
        """A one-line description without the key, for logs, thread metadata and errors."""
        if self.factory:
            return f"factory {self.factory}"
        return f"{self.model or '?'} at {self.base_url or 'https://api.openai.com/v1'}"

    def require_complete(self) -> None:
        """Check that a model can be built from these settings.

        Raises:
            ModelNotConfigured: Saying exactly which settings are missing.
        """
        if self.factory:
            return
        if self.model is None and self.base_url is None and self.api_key is None:
            raise ModelNotConfigured(
                "no chat model is configured. Set SAGA_BASE_URL to an OpenAI-compatible server "
                "(for example http://localhost:8000/v1 for vLLM or http://localhost:11434/v1 for Ollama) "
                "and SAGA_MODEL to the model it serves, or set OPENAI_API_KEY and SAGA_MODEL for OpenAI "
                "(command line: --base-url, --model, --api-key)"
            )
        if self.model is None:
            raise ModelNotConfigured(
                f"no model name is configured for {self.base_url or 'OpenAI'}: set SAGA_MODEL (or --model) "
                "to the model the server serves"
            )
        if self.is_openai and self.api_key is None:
            raise ModelNotConfigured(
                "calling OpenAI needs a key: set OPENAI_API_KEY or SAGA_API_KEY (or --api-key), "
                "or set SAGA_BASE_URL to a local OpenAI-compatible server"
            )

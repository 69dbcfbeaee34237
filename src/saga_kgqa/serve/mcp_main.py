"""The body of ``saga mcp``: the operator's sources and model, then the server on the chosen transport."""

from __future__ import annotations

from saga_kgqa.context import SagaContext
from saga_kgqa.models import ModelSettings
from saga_kgqa.serve.mcp_server import build_server, serve
from saga_kgqa.serve.mcp_tooling import ToolHost
from saga_kgqa.serve.named_sources import NamedSources


def configured_model() -> ModelSettings | None:
    """The model the environment configures (``SAGA_MODEL``/``SAGA_MODEL_FACTORY``...), or ``None``."""
    settings = ModelSettings.resolve()
    return settings if settings.factory or settings.model else None


def run_mcp(*, http: bool, bind: str, port: int, max_chars: int, ask_seconds: float) -> None:
    """Serve until stopped.

    Raises:
        ConfigurationError: The sources or the model are misconfigured.
    """
    context = SagaContext.from_env()
    host = ToolHost(
        NamedSources.example(context),
        context=context,
        max_chars=max_chars,
        model=configured_model(),
        ask_seconds=ask_seconds,
    )
    serve(build_server(host, bind=bind, port=port), "http" if http else "stdio")

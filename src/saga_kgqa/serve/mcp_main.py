"""The body of ``saga mcp``: the operator's catalog (sources and models), then the server on a transport."""

from __future__ import annotations

from saga_kgqa.context import SagaContext
from saga_kgqa.models import ModelSettings
from saga_kgqa.serve.mcp_server import build_server, serve
from saga_kgqa.serve.mcp_tooling import ToolHost
from saga_kgqa.serve.named_sources import NamedSources
from saga_kgqa.sources.catalog import Catalog


def has_model(catalog: Catalog) -> bool:
    """True when the catalog names a model, or the environment configures one (``SAGA_MODEL``, a factory...)."""
    if catalog.models:
        return True
    settings = ModelSettings.resolve()
    return bool(settings.factory or settings.model)


def run_mcp(*, http: bool, bind: str, port: int, max_chars: int, ask_seconds: float) -> None:
    """Serve until stopped.

    Raises:
        ConfigurationError: The catalog is unusable.
    """
    catalog = Catalog.from_env()
    host = ToolHost(
        NamedSources(catalog),
        context=SagaContext.from_env(),
        max_chars=max_chars,
        with_model=has_model(catalog),
        ask_seconds=ask_seconds,
    )
    serve(build_server(host, bind=bind, port=port), "http" if http else "stdio")

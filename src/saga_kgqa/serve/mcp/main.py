"""The body of ``saga mcp``: the operator's catalog (sources and models), then the server on a transport."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from saga_kgqa.config.catalog import Catalog
from saga_kgqa.config.context import SagaContext
from saga_kgqa.config.model_settings import ModelSettings
from saga_kgqa.runs.persistence import default_checkpoint_path
from saga_kgqa.serve.mcp.limits import CallGate, HttpLimits
from saga_kgqa.serve.mcp.server import build_server, serve
from saga_kgqa.serve.mcp.tooling import ToolHost
from saga_kgqa.serve.named_sources import NamedSources
from saga_kgqa.serve.sessions import SessionStore


@dataclass(frozen=True)
class McpOptions:
    """The operator's options of ``saga mcp``.

    Attributes:
        http: Serve streamable HTTP (else stdio).
        bind: HTTP bind address.
        port: HTTP port (0: a free one).
        max_chars: Cap on one tool result's characters.
        ask_seconds: Time budget of one ``kg_ask`` run.
        checkpoints: Checkpoint database of ``kg_ask`` runs (default: ``saga ask``'s).
        progress_s: Longest pause between two progress notifications.
        session_idle_minutes: Idle minutes after which an HTTP session is closed.
        sessions_per_client: Sessions one HTTP connection may have opened (its oldest closed beyond).
        sessions_per_address: Sessions of one peer address (new ones refused beyond).
        calls_per_session: Calls one session may have in flight.
        runs: ``kg_ask`` runs the server makes at once.
    """

    http: bool = False
    bind: str = "127.0.0.1"
    port: int = 8765
    max_chars: int = 6000
    ask_seconds: float = 180.0
    checkpoints: Path | None = None
    progress_s: float = 5.0
    session_idle_minutes: float = 5.0
    sessions_per_client: int = 64
    sessions_per_address: int = 1024
    calls_per_session: int = 8
    runs: int = 4


def has_model(catalog: Catalog) -> bool:
    """True when the catalog names a model, or the environment configures one (``SAGA_MODEL``, a factory...)."""
    if catalog.models:
        return True
    settings = ModelSettings.resolve()
    return bool(settings.factory or settings.model)


def run_mcp(options: McpOptions) -> None:
    """Serve until stopped.

    Raises:
        ConfigurationError: The catalog (or, with a model, the checkpoint database) is unusable.
    """
    catalog = Catalog.from_env()
    host = ToolHost(
        NamedSources(catalog),
        context=SagaContext.from_env(),
        max_chars=options.max_chars,
        with_model=has_model(catalog),
        ask_seconds=options.ask_seconds,
        checkpoints=options.checkpoints or default_checkpoint_path(),
        progress_s=options.progress_s,
        gate=CallGate(per_session=options.calls_per_session, runs=options.runs),
        sessions=SessionStore(idle_s=options.session_idle_minutes * 60),
    )
    limits = HttpLimits(
        session_idle_s=options.session_idle_minutes * 60,
        sessions_per_client=options.sessions_per_client,
        sessions_per_address=options.sessions_per_address,
    )
    server = build_server(host)
    serve(
        server,
        "http" if options.http else "stdio",
        bind=options.bind,
        port=options.port,
        limits=limits,
        on_session_end=host.sessions.forget,
    )

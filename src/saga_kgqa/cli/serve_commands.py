"""``saga mcp`` and ``saga serve text2sparql|web``: the faces that serve the tools and the agent.

The MCP SDK, Starlette and uvicorn are imported inside the commands, so ``import
saga_kgqa.cli`` stays light.
"""

from __future__ import annotations

from typing import Annotated

import typer

from saga_kgqa.cli.output import fail
from saga_kgqa.errors import ConfigurationError, SagaError

BindOption = Annotated[str, typer.Option("--bind", help="Address to listen on (loopback by default).")]
PortOption = Annotated[int, typer.Option("--port", min=0, max=65535, help="Port (0: a free one, printed on stderr).")]

serve_app = typer.Typer(
    help="Serve the agent over HTTP: the TEXT2SPARQL API or a local web page.", no_args_is_help=True
)


def _missing_extra(extra: str, exc: ImportError) -> ConfigurationError:
    return ConfigurationError(f"this command needs the '{extra}' extra: pip install 'saga-kgqa[{extra}]' ({exc})")


def mcp(
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP at /mcp instead of stdio.")] = False,
    bind: BindOption = "127.0.0.1",
    port: PortOption = 8765,
    max_chars: Annotated[
        int, typer.Option("--max-chars", min=500, help="Cap on the characters of one tool result.")
    ] = 6000,
    ask_seconds: Annotated[
        float, typer.Option("--ask-seconds", min=1.0, help="Time budget of one `ask` call (seconds).")
    ] = 180.0,
) -> None:
    """Serve the SAGA tools (search, lookup, examples, execute; ask with a model) as an MCP server."""
    try:
        from saga_kgqa.serve.mcp_main import run_mcp
    except ImportError as exc:
        fail(_missing_extra("mcp", exc))
    try:
        run_mcp(http=http, bind=bind, port=port, max_chars=max_chars, ask_seconds=ask_seconds)
    except SagaError as exc:
        fail(exc)


def register(app: typer.Typer) -> None:
    """Add ``saga mcp`` and ``saga serve`` to the ``saga`` app."""
    app.command("mcp")(mcp)
    app.add_typer(serve_app, name="serve")

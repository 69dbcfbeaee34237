"""``saga mcp`` and ``saga serve text2sparql|web``: the faces that serve the tools and the agent.

The MCP SDK, Starlette and uvicorn are imported inside the commands, so ``import
saga_kgqa.cli`` stays light.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from saga_kgqa.cli.groups import command_group
from saga_kgqa.cli.output import fail
from saga_kgqa.errors import ConfigurationError, SagaError

BindOption = Annotated[str, typer.Option("--bind", help="Address to listen on (loopback by default).")]
PortOption = Annotated[int, typer.Option("--port", min=0, max=65535, help="Port (0: a free one, printed on stderr).")]

serve_app = command_group("Serve the agent over HTTP: the TEXT2SPARQL API or a local web page.")


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
        float, typer.Option("--ask-seconds", min=1.0, help="Time budget of one `kg_ask` run (seconds).")
    ] = 180.0,
    checkpoints: Annotated[
        Path | None, typer.Option(help="Checkpoint database of kg_ask runs (default: saga ask's).")
    ] = None,
    progress_seconds: Annotated[
        float, typer.Option(min=0.5, max=10.0, help="Longest pause between progress notifications of a long call.")
    ] = 5.0,
    session_idle_minutes: Annotated[
        float, typer.Option(min=0.1, max=1440.0, help="HTTP sessions idle this long are closed (minutes).")
    ] = 5.0,
    sessions_per_client: Annotated[
        int,
        typer.Option(min=1, help="HTTP sessions one connection may open; one more closes its own least recently used."),
    ] = 64,
    sessions_per_address: Annotated[
        int,
        typer.Option(
            min=1,
            help="HTTP sessions of one client address; beyond, new ones are refused (503). A quarter of it may be "
            "opened at once, then half of it per idle period.",
        ),
    ] = 1024,
    calls_per_session: Annotated[
        int, typer.Option(min=1, help="Calls one session may have in flight; more answer 'busy'.")
    ] = 8,
    max_runs: Annotated[int, typer.Option(min=1, help="kg_ask runs at once; more answer 'busy'.")] = 4,
) -> None:
    """Serve the SAGA tools (kg_search, kg_lookup, kg_execute, ...; kg_ask with a model) as an MCP server."""
    try:
        from saga_kgqa.serve.mcp.main import McpOptions, run_mcp
    except ImportError as exc:
        fail(_missing_extra("mcp", exc))
    options = McpOptions(
        http=http,
        bind=bind,
        port=port,
        max_chars=max_chars,
        ask_seconds=ask_seconds,
        checkpoints=checkpoints,
        progress_s=progress_seconds,
        session_idle_minutes=session_idle_minutes,
        sessions_per_client=sessions_per_client,
        sessions_per_address=sessions_per_address,
        calls_per_session=calls_per_session,
        runs=max_runs,
    )
    try:
        run_mcp(options)
    except SagaError as exc:
        fail(exc)


@serve_app.command("text2sparql")
def text2sparql(
    out: Annotated[Path, typer.Option("--out", "-o", help="Predictions file every answer is recorded in (JSONL).")],
    dataset: Annotated[
        list[str] | None,
        typer.Option(
            "--dataset",
            help="IRI=SOURCE: a challenge dataset IRI and the catalog source answering it "
            "(repeatable; default: each source under its own name).",
        ),
    ] = None,
    answerer: Annotated[
        str, typer.Option(help="agent (the catalog's model), or gold-replay (replays --benchmark's gold queries).")
    ] = "agent",
    model: Annotated[str | None, typer.Option(help="A model name from the catalog (default: its default).")] = None,
    benchmark: Annotated[
        str | None, typer.Option(help="A benchmark whose questions keep their ids in the records (e.g. ck25).")
    ] = None,
    data_dir: Annotated[Path | None, typer.Option("--data-dir", help="Third-party data directory.")] = None,
    seconds: Annotated[float, typer.Option(min=1.0, help="Time budget per question (seconds).")] = 180.0,
    bind: BindOption = "127.0.0.1",
    port: PortOption = 8000,
) -> None:
    """Answer `GET /?dataset=…&question=…` with {"dataset", "question", "query"} (the TEXT2SPARQL API)."""
    try:
        from saga_kgqa.serve.text2sparql.main import AnswererKind, run_text2sparql
    except ImportError as exc:
        fail(_missing_extra("serve", exc))
    try:
        kind = AnswererKind(answerer)
    except ValueError:
        fail(ConfigurationError(f"--answerer is agent or gold-replay, got {answerer!r}"))
    try:
        run_text2sparql(
            out=out,
            datasets=dataset or [],
            answerer=kind,
            model=model,
            benchmark=benchmark,
            data_dir=data_dir,
            seconds=seconds,
            bind=bind,
            port=port,
        )
    except SagaError as exc:
        fail(exc)


@serve_app.command("web")
def web(
    checkpoints: Annotated[
        Path | None, typer.Option(help="Checkpoint database runs are saved in (default: saga ask's).")
    ] = None,
    bind: BindOption = "127.0.0.1",
    port: PortOption = 8080,
) -> None:
    """A local page: ask a named source a question and watch the run step by step; reopen earlier runs."""
    try:
        from saga_kgqa.serve.web.main import run_web
    except ImportError as exc:
        fail(_missing_extra("serve", exc))
    try:
        run_web(checkpoints=checkpoints, bind=bind, port=port)
    except SagaError as exc:
        fail(exc)


def register(app: typer.Typer) -> None:
    """Add ``saga mcp`` and ``saga serve`` to the ``saga`` app."""
    app.command("mcp")(mcp)
    app.add_typer(serve_app, name="serve")

"""Terminal and JSON output shared by the CLI commands."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, NoReturn, cast

import typer

from saga_kgqa.errors import ConfigurationError, QueryRejected, SagaError

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console

    from saga_kgqa.kg.core.result import QueryResult, Term


class _LazyConsole:
    """A rich :class:`~rich.console.Console` made on first use: importing rich.console costs start-up time."""

    def __init__(self, *, to_stderr: bool) -> None:
        self._to_stderr = to_stderr
        self._console: Console | None = None

    def real(self) -> Console:
        """The console itself, made now if it was not yet."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=self._to_stderr, soft_wrap=True)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real(), name)


stdout = cast("Console", _LazyConsole(to_stderr=False))
stderr = cast("Console", _LazyConsole(to_stderr=True))


def real_console(console: Console) -> Console:
    """The rich console behind :data:`stdout` or :data:`stderr`, for APIs that need a real one (progress bars)."""
    return console.real() if isinstance(console, _LazyConsole) else console


#: Exit status for a query the guard rejected and for unusable configuration.
EXIT_REJECTED = 2
#: Exit status for a store or endpoint failure.
EXIT_BACKEND = 1


def fail(error: SagaError) -> NoReturn:
    """Print a one-line reason for a typed error on stderr and exit with its status."""
    kind = type(error).__name__
    stderr.print(f"error: {kind}: {error.message}", markup=False, highlight=False)
    code = EXIT_REJECTED if isinstance(error, QueryRejected | ConfigurationError) else EXIT_BACKEND
    raise typer.Exit(code)


def read_query(query: str) -> str:
    """The query argument, or standard input for ``-``; input that is not UTF-8 is a rejected query.

    Exits with status 2 and a one-line reason (never a ``UnicodeDecodeError`` traceback).
    """
    if query != "-":
        return query
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        fail(
            QueryRejected(
                f"standard input is not valid UTF-8 (bad byte 0x{data[exc.start]:02x} at offset {exc.start}): "
                "send the query as UTF-8 text",
                reason="encoding",
            )
        )


def print_json(data: Any) -> None:
    """Write one JSON document to stdout."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _cell(term: Term | None) -> str:
    if term is None:
        return ""
    if term.kind == "literal":
        if term.lang:
            return f"{term.value} @{term.lang}"
        return term.value
    return term.n3() if term.kind != "uri" else term.value


def print_result(result: QueryResult, iri: Callable[[Term], str] | None = None) -> None:
    """Render a query result as a table (or a boolean) with its metadata; ``iri`` renders IRI cells."""
    from rich.table import Table

    if result.form == "ASK":
        stdout.print("true" if result.boolean else "false", markup=False, highlight=False)
    else:
        table = Table(*result.variables, show_lines=False, highlight=False)
        for row in result.rows:
            cells = (row.get(v) for v in result.variables)
            table.add_row(
                *(iri(t) if iri is not None and t is not None and t.kind == "uri" else _cell(t) for t in cells)
            )
        stdout.print(table)
        stdout.print(f"{len(result.rows)} row(s) in {result.elapsed_s * 1000:.1f} ms", markup=False, style="dim")
    for note in result.notes:
        stderr.print(f"note: {note}", markup=False, style="yellow")
    if not result.complete:
        stderr.print("note: the endpoint says this result may be incomplete; counts may be wrong", style="yellow")

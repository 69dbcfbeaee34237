"""Options shared by several ``saga`` commands, in one place so every ``--help`` says the same.

This module is imported by every command module at start-up, so it imports only typer, the
standard library and light project modules (no rdflib, pydantic, LangGraph): ``saga --help``
costs what typer costs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, get_args

import typer

from saga_kgqa.context import DIALECT_ALIASES, Dialect

#: The graph dialects, in the order ``--help`` lists them.
DIALECT_NAMES: tuple[Dialect, ...] = get_args(Dialect)
#: The one phrase that lists the dialect choices in every command's ``--help``.
DIALECT_CHOICES = "generic (plain RDF; `rdf` is an alias), wikidata or freebase"
_DIALECT_METAVAR = "[" + "|".join(DIALECT_NAMES) + "]"


def dialect_name(value: str | None) -> Dialect | None:
    """Check a ``--dialect`` value and return its canonical name (``rdf`` → ``generic``).

    Raises:
        typer.BadParameter: Not a dialect name; the message lists the choices.
    """
    if value is None:
        return None
    name = DIALECT_ALIASES.get(value, value)
    for known in DIALECT_NAMES:
        if name == known:
            return known
    raise typer.BadParameter(f"{value!r} is not a dialect; choose {DIALECT_CHOICES}")


def dialect_option(purpose: str) -> Any:
    """A ``--dialect`` option: ``purpose`` says what it changes; the choices are the same everywhere.

    Annotate the parameter ``str | None`` (a ``Literal`` would make typer reject the alias
    before the callback maps it); the command receives the canonical name, and
    :func:`dialect_name` narrows it to :data:`~saga_kgqa.context.Dialect` for the type checker.
    """
    return typer.Option(
        "--dialect",
        metavar=_DIALECT_METAVAR,
        callback=dialect_name,
        help=f"Graph dialect: {DIALECT_CHOICES}. {purpose}",
    )


DataOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--data",
        "-d",
        help="RDF files to load (repeatable), or one store directory written by `saga load`. "
        "Default: the example graph shipped with saga-kgqa.",
    ),
]
EndpointOption = Annotated[
    str | None, typer.Option("--endpoint", "-e", help="URL of a remote SPARQL endpoint (instead of --data).")
]
ProfileOption = Annotated[
    str | None,
    typer.Option(help="Endpoint profile: generic, fuseki, embedded, wikidata, qlever, virtuoso."),
]
SchemaOption = Annotated[
    Path | None,
    typer.Option("--schema", help="Schema index written by `saga index build` (default: build it now)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the machine-readable result as JSON.")]
DataDirOption = Annotated[
    Path | None,
    typer.Option("--data-dir", help="Third-party data directory (default: $SAGA_DATA_DIR, else ../shared/data)."),
]

"""``saga execute``: the execute tool from the shell, printing exactly what a model would read.

Unlike ``saga sparql``, the query first passes the pre-execution type check against the
schema index (``[BLOCKED]`` queries are not run), an empty result is diagnosed, and the
types of returned entities are reported.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from saga_kgqa.app.open import open_graph
from saga_kgqa.cli.index.commands import load_or_build_schema
from saga_kgqa.cli.options import (
    DataOption,
    EndpointOption,
    ProfileOption,
    QueryArgument,
    SchemaOption,
    SourceCatalogOption,
)
from saga_kgqa.cli.output import EXIT_BACKEND, EXIT_REJECTED, fail, print_json, read_query
from saga_kgqa.errors import ConfigurationError, SagaError
from saga_kgqa.kg.core.backend import MAX_DEADLINE_S

if TYPE_CHECKING:
    from saga_kgqa.tools.execute.tool import ExecuteOutcome, ExecuteSettings

#: Exit status of a query the type check blocked (it was not run).
EXIT_BLOCKED = 3

_EXIT_CODES = {"ok": 0, "empty": 0, "blocked": EXIT_BLOCKED, "rejected": EXIT_REJECTED, "error": EXIT_BACKEND}


def execute_command(
    query: QueryArgument,
    data: DataOption = None,
    endpoint: EndpointOption = None,
    profile: ProfileOption = None,
    schema: SchemaOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the machine-readable outcome as JSON.")] = False,
    exact: Annotated[
        bool, typer.Option("--exact", help="Exact type match (the paper's rule) instead of subclass-aware.")
    ] = False,
    verify: Annotated[bool, typer.Option(help="Confirm a schema conflict against the graph before blocking.")] = True,
    max_rows: Annotated[int, typer.Option(min=1, help="Rows shown in the table.")] = 20,
    timeout: Annotated[
        float,
        typer.Option(
            min=0.1,
            max=MAX_DEADLINE_S,
            help="One deadline for the guard, the type check, the query and its diagnosis, in seconds.",
        ),
    ] = 30.0,
    source: Annotated[
        str | None, typer.Option("--source", help="A source name from the catalog (instead of --data/--endpoint).")
    ] = None,
    catalog: SourceCatalogOption = None,
) -> None:
    """Type-check and run one SPARQL query as the agent's execute tool does.

    Exit status: 0 for a result (empty included), 3 when blocked, 2 when rejected, 1 on a store failure.
    """
    from saga_kgqa.tools.execute.tool import ExecuteSettings, execute

    text = read_query(query)
    settings = ExecuteSettings(verify_blocks=verify, max_rows_shown=max_rows, deadline_s=timeout)
    try:
        if source is not None:
            outcome = _on_source(source, catalog, text, settings, bool(data or endpoint or schema))
        else:
            with open_graph(data, endpoint, profile) as graph:
                index = load_or_build_schema(graph, schema)
                outcome = execute(
                    text, graph=graph, schema=index, mode="exact" if exact else "subclass", settings=settings
                )
    except SagaError as exc:
        fail(exc)
    _print(outcome, as_json)
    code = _EXIT_CODES[outcome.status]
    if code:
        raise typer.Exit(code)


def _on_source(
    source: str, catalog: Path | None, text: str, settings: ExecuteSettings, other_graph: bool
) -> ExecuteOutcome:
    """Execute on a named source, type-checked with its declared or surveyed schema."""
    if other_graph:
        raise ConfigurationError("--source names the graph and its schema; give no --data, --endpoint or --schema")
    from saga_kgqa.app.sources import opened_sources
    from saga_kgqa.sources.grounding import execute_on_source

    with opened_sources(catalog) as sources:
        return execute_on_source(sources, source, text, settings=settings)


def _print(outcome: ExecuteOutcome, as_json: bool) -> None:
    if as_json:
        print_json(outcome.model_dump(mode="json"))
    else:
        sys.stdout.write(outcome.text + "\n")


def register(app: typer.Typer) -> None:
    """Add ``saga execute`` to the ``saga`` application."""
    app.command("execute")(execute_command)

"""``saga search``, ``saga lookup`` and ``saga examples``: the grounding tools from the shell.

They print exactly the observation a model would read (``--json``: the machine-readable
result instead), so a person can see what the agent sees.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from saga_kgqa.app.open import open_graph
from saga_kgqa.cli.options import (
    DataDirOption,
    DataOption,
    EndpointOption,
    JsonOption,
    ProfileOption,
    SchemaOption,
    dialect_name,
    dialect_option,
)
from saga_kgqa.cli.output import EXIT_REJECTED, fail, print_json, stderr
from saga_kgqa.errors import ConfigurationError, SagaError, ToolInputError

if TYPE_CHECKING:
    from saga_kgqa.tools.context import ToolCaps
    from saga_kgqa.tools.results import ToolResult
    from saga_kgqa.tools.toolkit import GroundingToolkit

SourceOption = Annotated[
    str | None,
    typer.Option("--source", help="A source name from the catalog (instead of --data/--endpoint)."),
]
CatalogOption = Annotated[
    Path | None,
    typer.Option("--catalog", help="The catalog file of --source (default: $SAGA_CATALOG, else the environment)."),
]
DialectOption = Annotated[
    str,
    dialect_option(
        "wikidata reads wdt: statements, qualifiers and P1855 examples (schema index from --data-dir); "
        "freebase reads ns:, CVT nodes and reverse properties (schema from fb_roles)."
    ),
]


def _run(
    data: list[Path] | None,
    endpoint: str | None,
    profile: str | None,
    schema_file: Path | None,
    as_json: bool,
    call: Callable[[GroundingToolkit], ToolResult],
    *,
    exact: bool = False,
    dialect: str = "generic",
    data_dir: Path | None = None,
    caps: ToolCaps | None = None,
    source: str | None = None,
    catalog: Path | None = None,
) -> None:
    """Open the graph, make the toolkit, run one tool and print its result."""
    from saga_kgqa.app.toolkits import toolkit_over
    from saga_kgqa.dialects import get_dialect
    from saga_kgqa.kg.embedded.declared_prefixes import read_declared_prefixes
    from saga_kgqa.schema import CompatibilityMode

    # The data files' own prefixes make ids readable (pv:memberOf); a human reads this output.
    prefixes = read_declared_prefixes(data or [])
    try:
        if source is not None:
            _print(_on_source(source, catalog, data, endpoint, schema_file, call), as_json)
            return
        chosen = get_dialect(dialect_name(dialect) or "generic")
        if profile is None and chosen.name == "wikidata":
            profile = "wikidata"  # WDQS prefixes, so the ids shown parse in queries
        with open_graph(data, endpoint, profile) as graph:
            mode: CompatibilityMode = "exact" if exact else "subclass"
            kit = toolkit_over(
                graph,
                dialect=chosen,
                schema_file=schema_file,
                data_dir=data_dir,
                prefixes=prefixes,
                mode=mode,
                caps=caps,
                note=_note,
            )
            result = call(kit)
    except ToolInputError as exc:
        stderr.print(f"error: {exc.message}", markup=False, highlight=False)
        raise typer.Exit(EXIT_REJECTED) from None
    except SagaError as exc:
        fail(exc)
    _print(result, as_json)


def _note(text: str) -> None:
    # A plain line: rich's first styled print costs a search about 0.4 s of imports (issue 27).
    sys.stderr.write(text + "\n")


def _print(result: ToolResult, as_json: bool) -> None:
    if as_json:
        print_json(result.model_dump(mode="json"))
    else:
        sys.stdout.write(result.text + "\n")


def _on_source(
    source: str,
    catalog: Path | None,
    data: list[Path] | None,
    endpoint: str | None,
    schema_file: Path | None,
    call: Callable[[GroundingToolkit], ToolResult],
) -> ToolResult:
    """Run a tool on a named source: its declared or surveyed schema and its full-text name index."""
    if data or endpoint or schema_file is not None:
        raise ConfigurationError("--source names the graph and its schema; give no --data, --endpoint or --schema")
    from saga_kgqa.app.sources import opened_sources
    from saga_kgqa.sources.grounding import source_toolkit

    with opened_sources(catalog) as sources:
        return call(source_toolkit(sources, source))


def search(
    text: Annotated[str, typer.Argument(help="A name or part of one.")],
    data: DataOption = None,
    endpoint: EndpointOption = None,
    profile: ProfileOption = None,
    schema: SchemaOption = None,
    as_json: JsonOption = False,
    dialect: DialectOption = "generic",
    data_dir: DataDirOption = None,
    source: SourceOption = None,
    catalog: CatalogOption = None,
) -> None:
    """Find entities, classes and properties by label, alias or name (exact, prefix, fuzzy)."""
    _run(
        data,
        endpoint,
        profile,
        schema,
        as_json,
        lambda kit: kit.search(text),
        dialect=dialect,
        data_dir=data_dir,
        source=source,
        catalog=catalog,
    )


def lookup(
    entity: Annotated[str, typer.Argument(help="Entity IRI: <http://…>, a prefixed name, or http://….")],
    data: DataOption = None,
    endpoint: EndpointOption = None,
    profile: ProfileOption = None,
    schema: SchemaOption = None,
    as_json: JsonOption = False,
    exact: Annotated[
        bool, typer.Option("--exact", help="Exact type match (the paper's rule) instead of subclass-aware.")
    ] = False,
    dialect: DialectOption = "generic",
    data_dir: DataDirOption = None,
    values: Annotated[
        int | None,
        typer.Option(
            "--values",
            min=0,
            help="Sample values per property (0: the paper's entries, with counts only; default: as the agent).",
            show_default=False,
        ),
    ] = None,
    source: SourceOption = None,
    catalog: CatalogOption = None,
) -> None:
    """Show an entity's types and its properties that fit them, with domains, ranges and hidden ones."""
    _run(
        data,
        endpoint,
        profile,
        schema,
        as_json,
        lambda kit: kit.lookup(entity),
        exact=exact,
        dialect=dialect,
        data_dir=data_dir,
        caps=_caps(values),
        source=source,
        catalog=catalog,
    )


def _caps(values: int | None) -> ToolCaps | None:
    from saga_kgqa.tools.context import ToolCaps

    return None if values is None else ToolCaps(values_per_property=values)


def examples(
    prop: Annotated[str, typer.Argument(metavar="PROPERTY", help="Property IRI or prefixed name.")],
    data: DataOption = None,
    endpoint: EndpointOption = None,
    profile: ProfileOption = None,
    schema: SchemaOption = None,
    as_json: JsonOption = False,
    dialect: DialectOption = "generic",
    data_dir: DataDirOption = None,
) -> None:
    """Show a property's domain and range and a few triples that use it."""
    _run(
        data,
        endpoint,
        profile,
        schema,
        as_json,
        lambda kit: kit.property_examples(prop),
        dialect=dialect,
        data_dir=data_dir,
    )


def register(app: typer.Typer) -> None:
    """Add ``saga search``, ``saga lookup`` and ``saga examples`` to the ``saga`` application."""
    app.command("search")(search)
    app.command("lookup")(lookup)
    app.command("examples")(examples)

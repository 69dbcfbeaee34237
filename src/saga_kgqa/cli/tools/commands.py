"""``saga search``, ``saga lookup`` and ``saga examples``: the grounding tools from the shell.

They print exactly the observation a model would read (``--json``: the machine-readable
result instead), so a person can see what the agent sees: the tools are the default view of the
same toolbox ``saga ask`` opens (:func:`saga_kgqa.app.toolboxes.toolbox_over`), or of the named
source's toolbox with ``--source``. The three commands share one runner and one list of graph
options; each adds its argument and its own options.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

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
    from saga_kgqa.tools.results import ToolResult
    from saga_kgqa.tools.toolbox import ToolView

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
ExactOption = Annotated[
    bool, typer.Option("--exact", help="Exact type match (the paper's rule) instead of subclass-aware.")
]
ValuesOption = Annotated[
    int | None,
    typer.Option(
        "--values",
        min=0,
        help="Sample values per property (0: the paper's entries, with counts only; default: as the agent).",
        show_default=False,
    ),
]

#: What a tool command runs on the tools' view, given the command's parsed arguments.
ToolCall = Callable[["ToolView", Mapping[str, Any]], "ToolResult"]


def _parameter(name: str, annotation: object, default: object = inspect.Parameter.empty) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=annotation)


#: The options naming the graph and the output, in the order every tool command shows them.
_GRAPH = (
    _parameter("data", DataOption, None),
    _parameter("endpoint", EndpointOption, None),
    _parameter("profile", ProfileOption, None),
    _parameter("schema", SchemaOption, None),
    _parameter("as_json", JsonOption, False),
)
_DIALECT = (_parameter("dialect", DialectOption, "generic"), _parameter("data_dir", DataDirOption, None))
_SOURCE = (_parameter("source", SourceOption, None), _parameter("catalog", CatalogOption, None))


def tool_command(doc: str, parameters: tuple[inspect.Parameter, ...], call: ToolCall) -> Callable[..., None]:
    """A ``saga`` command that runs one tool: typer reads ``parameters`` as its signature and ``doc`` as its help.

    Args:
        doc: The command's help.
        parameters: Its argument and options (typer annotations), in the order the help lists them.
        call: The tool to run on the view, with the parsed arguments.
    """

    def command(**arguments: Any) -> None:
        _run(arguments, lambda view: call(view, arguments))

    command.__doc__ = doc
    command.__signature__ = inspect.Signature(list(parameters))  # type: ignore[attr-defined]
    return command


def _run(arguments: Mapping[str, Any], call: Callable[[ToolView], ToolResult]) -> None:
    """Open the graph (or the named source), take the tools' default view, run one tool and print its result."""
    try:
        on = _on_source if arguments.get("source") is not None else _on_graph
        result = on(arguments, call)
    except ToolInputError as exc:
        stderr.print(f"error: {exc.message}", markup=False, highlight=False)
        raise typer.Exit(EXIT_REJECTED) from None
    except SagaError as exc:
        fail(exc)
    if arguments["as_json"]:
        print_json(result.model_dump(mode="json"))
    else:
        sys.stdout.write(result.text + "\n")


def _on_graph(arguments: Mapping[str, Any], call: Callable[[ToolView], ToolResult]) -> ToolResult:
    """Run a tool on files, a store or an endpoint: the toolbox ``saga ask`` opens over the same options."""
    from saga_kgqa.app.toolboxes import toolbox_over
    from saga_kgqa.config.open_options import OpenOptions
    from saga_kgqa.kg.embedded.declared_prefixes import read_declared_prefixes

    data: list[Path] | None = arguments["data"]
    dialect = dialect_name(arguments["dialect"]) or "generic"
    profile: str | None = arguments["profile"]
    if profile is None and dialect == "wikidata":
        profile = "wikidata"  # WDQS prefixes, so the ids shown parse in queries
    options = OpenOptions(dialect, arguments["schema"], arguments["data_dir"])
    with open_graph(data, arguments["endpoint"], profile) as graph:
        # The data files' own prefixes make ids readable (pv:memberOf); a human reads this output.
        toolbox = toolbox_over(graph, options, data=data, prefixes=read_declared_prefixes(data or []), note=_note)
        view = toolbox.default_view(
            mode="exact" if arguments.get("exact") else "subclass", lookup_values=arguments.get("values")
        )
        return call(view)


def _note(text: str) -> None:
    # A plain line: rich's first styled print costs a search about 0.4 s of imports (issue 27).
    sys.stderr.write(text + "\n")


def _on_source(arguments: Mapping[str, Any], call: Callable[[ToolView], ToolResult]) -> ToolResult:
    """Run a tool on a named source: the default view of its toolbox, searching its full-text name index."""
    if arguments["data"] or arguments["endpoint"] or arguments["schema"] is not None:
        raise ConfigurationError("--source names the graph and its schema; give no --data, --endpoint or --schema")
    from saga_kgqa.app.sources import opened_sources
    from saga_kgqa.sources.grounding import source_view

    with opened_sources(arguments["catalog"]) as sources:
        return call(source_view(sources, arguments["source"]))


search = tool_command(
    "Find entities, classes and properties by label, alias or name (exact, prefix, fuzzy).",
    (_parameter("text", Annotated[str, typer.Argument(help="A name or part of one.")]), *_GRAPH, *_DIALECT, *_SOURCE),
    lambda view, arguments: view.search(arguments["text"]),
)
lookup = tool_command(
    "Show an entity's types and its properties that fit them, with domains, ranges and hidden ones.",
    (
        _parameter(
            "entity", Annotated[str, typer.Argument(help="Entity IRI: <http://…>, a prefixed name, or http://….")]
        ),
        *_GRAPH,
        _parameter("exact", ExactOption, False),
        *_DIALECT,
        _parameter("values", ValuesOption, None),
        *_SOURCE,
    ),
    lambda view, arguments: view.lookup(arguments["entity"]),
)
examples = tool_command(
    "Show a property's domain and range and a few triples that use it.",
    (
        _parameter("prop", Annotated[str, typer.Argument(metavar="PROPERTY", help="Property IRI or prefixed name.")]),
        *_GRAPH,
        *_DIALECT,
    ),
    lambda view, arguments: view.examples(arguments["prop"]),
)


def register(app: typer.Typer) -> None:
    """Add ``saga search``, ``saga lookup`` and ``saga examples`` to the ``saga`` application."""
    app.command("search")(search)
    app.command("lookup")(lookup)
    app.command("examples")(examples)

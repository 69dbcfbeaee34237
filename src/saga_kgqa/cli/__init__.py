"""The ``saga`` command line.

Adding a command (the pattern every command module follows):

1. Write ``cli/<topic>_commands.py`` with the command functions and one
   ``register(app: typer.Typer) -> None`` that adds them (``app.command("name")(function)``, or a
   group made with :func:`saga_kgqa.cli.groups.command_group` and ``app.add_typer(group, name=...)``).
2. Add one line per top-level command to :data:`COMMANDS` below: its name, its module and the
   first paragraph of its help (``tests/unit/cli/test_cli_startup.py`` checks both agree). The
   module is imported only when that command runs (:class:`~saga_kgqa.cli.lazy_group.LazyGroup`),
   so ``saga --help`` and every other command never pay for it.
3. Declare an option once: reuse the aliases of :mod:`saga_kgqa.cli.options`, and take a set of
   options several commands share as one group (:class:`~saga_kgqa.cli.options.GraphOptions`,
   :class:`~saga_kgqa.cli.options.MarsOptions`, ...; :mod:`saga_kgqa.cli.option_groups`).
4. Keep the module's top-level imports light anyway (typer, the standard library,
   :mod:`saga_kgqa.cli.options` for the shared ``--data``/``--endpoint``/``--dialect`` options,
   :mod:`saga_kgqa.cli.output`, ``context``, ``errors``, ``settings``): import stores, the guard,
   schema, tools, LangGraph, models and eval inside the command function that uses them, with
   ``if TYPE_CHECKING:`` imports for helpers' annotations. Typer reads a command's signature
   before running it, so the types it names must be light too. ``bench/startup.py`` measures
   the start-up against its floors.
"""

from __future__ import annotations

from typing import ClassVar

from saga_kgqa.cli.groups import command_group
from saga_kgqa.cli.lazy_group import LazyCommand, LazyGroup

_STORE = "saga_kgqa.cli.store_commands"
_TOOLS = "saga_kgqa.cli.tools.commands"
_SERVE = "saga_kgqa.cli.serve_commands"

#: Every top-level ``saga`` command, in the order ``saga --help`` lists them.
COMMANDS: dict[str, LazyCommand] = {
    "load": LazyCommand(
        _STORE,
        "Load RDF files into a persisted store directory for later runs: all of them, or the store stays as it was.",
    ),
    "sparql": LazyCommand(
        _STORE, "Run one read-only SPARQL query; a rejected query exits with status 2 and a one-line reason."
    ),
    "search": LazyCommand(
        _TOOLS, "Find entities, classes and properties by label, alias or name (exact, prefix, fuzzy)."
    ),
    "lookup": LazyCommand(
        _TOOLS, "Show an entity's types and its properties that fit them, with domains, ranges and hidden ones."
    ),
    "examples": LazyCommand(_TOOLS, "Show a property's domain and range and a few triples that use it."),
    "execute": LazyCommand(
        "saga_kgqa.cli.tools.execute", "Type-check and run one SPARQL query as the agent's execute tool does."
    ),
    "ask": LazyCommand(
        "saga_kgqa.cli.ask.command",
        "Answer a question with an executable SPARQL query, built step by step by the SAGA agent.",
    ),
    "index": LazyCommand("saga_kgqa.cli.index.commands", "Build and inspect schema indexes."),
    "eval": LazyCommand("saga_kgqa.cli.eval.commands", "Score, run and ablate benchmarks."),
    "wikidata": LazyCommand(
        "saga_kgqa.cli.wikidata_commands", "The offline Wikidata store (CoDEx and recorded Wikidata responses)."
    ),
    "source": LazyCommand(
        "saga_kgqa.cli.source_commands",
        "Named sources: catalog, live survey, summary, entity resolution, expansion, bridging.",
    ),
    "mcp": LazyCommand(
        _SERVE, "Serve the SAGA tools (kg_search, kg_lookup, kg_execute, ...; kg_ask with a model) as an MCP server."
    ),
    "serve": LazyCommand(_SERVE, "Serve the agent over HTTP: the TEXT2SPARQL API or a local web page."),
}


class SagaGroup(LazyGroup):
    """The ``saga`` group: :data:`COMMANDS`, each imported when it runs."""

    registry: ClassVar[dict[str, LazyCommand]] = COMMANDS


app = command_group(
    "saga-kgqa: answer questions over knowledge graphs with executable SPARQL.", name="saga", cls=SagaGroup
)


@app.callback()
def _saga() -> None:
    # A callback makes typer build a group even though no command is registered on ``app`` itself.
    return None


def main() -> None:
    """Run the ``saga`` command."""
    app()

"""The ``saga`` command line."""

from __future__ import annotations

import typer

from saga_kgqa.cli.ask_command import register as register_ask_command
from saga_kgqa.cli.eval_commands import register as register_eval_commands
from saga_kgqa.cli.execute_command import register as register_execute_command
from saga_kgqa.cli.index_commands import register as register_index_commands
from saga_kgqa.cli.source_commands import register as register_source_commands
from saga_kgqa.cli.store_commands import register as register_store_commands
from saga_kgqa.cli.tool_commands import register as register_tool_commands
from saga_kgqa.cli.wikidata_commands import register as register_wikidata_commands

app = typer.Typer(
    name="saga",
    help="saga-kgqa: answer questions over knowledge graphs with executable SPARQL.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
register_store_commands(app)
register_index_commands(app)
register_tool_commands(app)
register_eval_commands(app)
register_execute_command(app)
register_ask_command(app)
register_wikidata_commands(app)
register_source_commands(app)


def main() -> None:
    """Run the ``saga`` command."""
    app()

"""A command group that imports a command's module only when that command runs.

Typer builds every command's options (reading every signature) before it prints anything,
and each command module names the stacks its options need; so ``saga --help`` would pay for
all of them. :class:`LazyGroup` lists the commands from a table of
:class:`LazyCommand` entries (module and one-line summary) and builds only the command that
is asked for, by calling its module's ``register(app)`` on a scratch application.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

from saga_kgqa.cli.groups import command_group

if TYPE_CHECKING:
    from typer._click import Command, Context, HelpFormatter
    from typer.core import TyperOption


@dataclass(frozen=True)
class LazyCommand:
    """Where a top-level ``saga`` command lives.

    Attributes:
        module: The module whose ``register(app)`` adds the command (``saga_kgqa.cli.store_commands``).
        summary: The line ``saga --help`` shows: the command's first help paragraph (a test checks they agree).
    """

    module: str
    summary: str


def load_command(name: str, entry: LazyCommand) -> Command:
    """Import ``entry.module``, let it register its commands, and return the one called ``name``.

    Raises:
        LookupError: The module's ``register`` adds no command of that name (a wrong table entry).
    """
    from saga_kgqa.cli.param_coercion import light_coercion

    module = importlib.import_module(entry.module)
    scratch = command_group(entry.summary)
    module.register(scratch)
    command = typer.main.get_group(scratch).commands.get(name)
    if command is None:
        raise LookupError(f"{entry.module}.register adds no command {name!r}")
    return light_coercion(command)


class LazyGroup(TyperGroup):
    """A typer group whose commands (from :attr:`registry`) are imported when first used."""

    #: The commands of the group, in the order ``--help`` lists them; set by a subclass.
    registry: ClassVar[Mapping[str, LazyCommand]] = {}

    def list_commands(self, ctx: Context) -> list[str]:
        """The registry's commands, then any added directly."""
        return [*self.registry, *(name for name in super().list_commands(ctx) if name not in self.registry)]

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        """The command called ``cmd_name``, imported now if it is a registry entry not yet loaded."""
        entry = self.registry.get(cmd_name)
        if entry is not None and cmd_name not in self.commands:
            self.commands[cmd_name] = load_command(cmd_name, entry)
        return super().get_command(ctx, cmd_name)

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        """The group's ``--help`` option, coerced without pydantic (:mod:`saga_kgqa.cli.param_coercion`)."""
        from saga_kgqa.cli.param_coercion import light_param

        option = super().get_help_option(ctx)
        if option is not None:
            light_param(option)
        return option

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        """List the commands with the registry's summaries, without importing any of them."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            entry = self.registry.get(name)
            command = TyperCommand(name=name, help=entry.summary) if entry else self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

"""The one way to make a ``saga`` command group, so every group prints its help the same, cheap way."""

from __future__ import annotations

import typer
from typer.core import TyperGroup


def command_group(help_text: str, *, name: str | None = None, cls: type[TyperGroup] | None = None) -> typer.Typer:
    """A typer application for ``saga`` or one of its groups (``saga index``, ``saga eval``, ...).

    Help is click's plain formatting (``rich_markup_mode=None``): typer's rich help loads
    rich's markdown and syntax machinery, which alone made ``saga --help`` three times as
    slow as importing typer and rich.
    """
    return typer.Typer(
        name=name,
        cls=cls,
        help=help_text,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )

"""Option groups: declared once, listed in place by ``--help``, handed to the command gathered."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import pytest
import typer
from typer.testing import CliRunner

from saga_kgqa.cli.option_groups import OptionGroup, with_option_groups


@dataclass(frozen=True)
class Paging(OptionGroup):
    limit: Annotated[int, typer.Option(min=1, help="Rows per page.")] = 10
    offset: Annotated[int | None, typer.Option("--skip", help="Rows to skip.")] = None


@dataclass(frozen=True)
class Output(OptionGroup):
    as_json: Annotated[bool, typer.Option("--json", help="JSON.")] = False


@dataclass(frozen=True)
class Again(OptionGroup):
    limit: int = 1


def _app(received: dict[str, Any]) -> typer.Typer:
    app = typer.Typer()

    @app.command()
    @with_option_groups
    def show(
        name: Annotated[str, typer.Argument(help="A name.")],
        first: Annotated[bool, typer.Option(help="Before the groups.")] = False,
        *,
        paging: Paging,
        output: Output,
        last: Annotated[str, typer.Option(help="After the groups.")] = "z",
    ) -> None:
        received.update(name=name, first=first, paging=paging, output=output, last=last)

    return app


def test_a_command_receives_its_groups_gathered() -> None:
    received: dict[str, Any] = {}
    result = CliRunner().invoke(_app(received), ["x", "--limit", "3", "--json", "--last", "a"])
    assert result.exit_code == 0, result.output
    assert received == {"name": "x", "first": False, "paging": Paging(3, None), "output": Output(True), "last": "a"}


def test_defaults_and_checks_come_from_the_group_fields() -> None:
    received: dict[str, Any] = {}
    assert CliRunner().invoke(_app(received), ["x", "--skip", "4"]).exit_code == 0
    assert received["paging"] == Paging(10, 4)
    bad = CliRunner().invoke(_app(received), ["x", "--limit", "0"])
    assert bad.exit_code == 2
    assert "--limit" in bad.output


def test_help_lists_the_fields_where_the_group_stands() -> None:
    text = CliRunner().invoke(_app({}), ["--help"], terminal_width=200).output
    order = [text.index(option) for option in ("--first", "--limit", "--skip", "--json", "--last")]
    assert order == sorted(order)
    assert "Rows per page." in text


def test_a_name_declared_twice_is_refused() -> None:
    def command(*, paging: Paging, again: Again) -> None:
        return None

    with pytest.raises(TypeError, match="repeat a parameter name"):
        with_option_groups(command)

"""The light coercion of command-line values gives typer's result, or leaves the value to typer's own coercion.

Every parameter of every ``saga`` command (groups walked) is fed the same battery of raw values: what
:class:`~saga_kgqa.cli.param_coercion.LightCoercion` takes itself must equal, value and type, what
typer's pydantic coercion returns, and a value typer rejects must never be taken; through the fallback
the errors are typer's own, message for message.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from typer._click import Command, Context, Parameter
from typer._coercion import build_runtime_param
from typer._typing import is_literal_type, literal_values

from saga_kgqa.cli import COMMANDS
from saga_kgqa.cli.lazy_group import load_command
from saga_kgqa.cli.param_coercion import LightCoercion, _coerce, _Declined

_RAW: tuple[Any, ...] = (
    None,
    "",
    "0",
    "-0",
    "5",
    "-1",
    "007",
    "1.5",
    "0.05",
    "1e3",
    " 5",
    "1_0",
    "inf",
    "nan",
    "abc",
    "ABC",
    "-",
    "a\x00b",
    "bad\udcff",
    "/tmp",
    "no/such/dir",
    "99999999999999999999999",
    True,
    False,
    0,
    3,
    -2,
    2.5,
    float("nan"),
    10**30,
    Path("x.ttl"),
    b"bytes",
)


def _params() -> list[tuple[str, Command, Parameter]]:
    found: list[tuple[str, Command, Parameter]] = []

    def walk(path: str, command: Command) -> None:
        for param in command.params:
            if hasattr(param, "type_descriptor"):
                found.append((f"{path}:{param.name}", command, param))
        for name, sub in getattr(command, "commands", {}).items():
            walk(f"{path} {name}", sub)

    for name, entry in COMMANDS.items():
        walk(name, load_command(name, entry))
    return found


def _values(param: Parameter) -> list[Any]:
    annotation = param.type_descriptor.annotation  # type: ignore[attr-defined]
    inner = getattr(annotation, "__args__", (annotation,))[0] if getattr(annotation, "__origin__", None) else None
    leaf = inner or annotation
    choices: list[Any] = []
    if isinstance(leaf, type) and issubclass(leaf, Enum):
        choices = [*leaf, *(m.value for m in leaf), *(str(m.value).upper() for m in leaf)]
    elif is_literal_type(leaf):
        choices = [*literal_values(leaf), *(str(v).upper() for v in literal_values(leaf))]
    singles = [*_RAW, *choices, param.default]
    return [*singles, (), ("5", "-1"), ["a", "b"], ("x", 3), *((c,) for c in choices)]


def _outcome(function: Any) -> tuple[str, Any]:
    try:
        return "ok", function()
    except Exception as exc:  # the comparison is of whatever typer raises
        return "error", f"{type(exc).__name__}: {exc}"


def _same(one: Any, other: Any) -> bool:
    """Equal, NaN included (a float option given ``nan``)."""
    return bool(one == other) or repr(one) == repr(other)


_PARAMS = _params()


def test_the_battery_reaches_every_kind_of_parameter() -> None:
    kinds = {type(p.type_descriptor.annotation).__name__ for _, _, p in _PARAMS}  # type: ignore[attr-defined]
    annotations = {p.type_descriptor.annotation for _, _, p in _PARAMS}  # type: ignore[attr-defined]
    assert {str, int, float, bool, Path} <= annotations
    assert any(isinstance(a, type) and issubclass(a, Enum) for a in annotations)
    assert any(is_literal_type(a) for a in annotations), kinds
    assert any(getattr(a, "__origin__", None) is list for a in annotations)


@pytest.mark.parametrize(("where", "command", "param"), _PARAMS, ids=[w for w, _, _ in _PARAMS])
def test_light_coercion_agrees_with_typers(where: str, command: Command, param: Parameter) -> None:
    ctx = Context(command)
    typers = build_runtime_param(param.type_descriptor)  # type: ignore[attr-defined]
    light = LightCoercion(param)
    taken = 0
    for value in _values(param):
        expected = _outcome(lambda value=value: typers.coerce(value, param=param, ctx=ctx))  # type: ignore[arg-type]
        try:
            own = _coerce(value, param, ctx, param.type_descriptor)  # type: ignore[attr-defined]
        except _Declined:
            pass
        else:
            taken += 1
            assert expected[0] == "ok", (where, value, expected)
            assert _same(own, expected[1]), (where, value, own, expected)
            assert type(own) is type(expected[1]), (where, value, own, expected)
            if isinstance(own, list):
                assert [type(x) for x in own] == [type(x) for x in expected[1]], (where, value)
        # Through the fallback the outcome, error message included, is typer's.
        fallback = _outcome(lambda value=value: light.coerce(value, param, ctx))
        assert fallback[0] == expected[0] and _same(fallback[1], expected[1]), (where, value, fallback, expected)
    assert taken > 0, where  # None at least is always taken here


def test_commands_from_the_table_use_the_light_coercion() -> None:
    command = load_command("sparql", COMMANDS["sparql"])
    assert all(isinstance(p._runtime_param, LightCoercion) for p in command.params)  # type: ignore[attr-defined]
    help_option = command.get_help_option(Context(command))
    assert help_option is not None
    assert isinstance(help_option._runtime_param, LightCoercion)


def test_without_typers_private_helpers_every_parameter_keeps_typers_coercion(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A typer without the private helpers this module uses: commands load and parse with typer's own coercion."""
    from typer.testing import CliRunner

    from saga_kgqa.cli import app as cli_app
    from saga_kgqa.cli import param_coercion

    monkeypatch.setattr(param_coercion, "AVAILABLE", False)
    command = load_command("sparql", COMMANDS["sparql"])
    assert not any(isinstance(getattr(p, "_runtime_param", None), LightCoercion) for p in command.params)
    result = CliRunner().invoke(cli_app, ["sparql", "--help"])
    assert result.exit_code == 0, result.output

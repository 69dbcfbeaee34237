"""Typer's coercion of command-line values, without pydantic for the values whose result is certain.

Typer (0.29) coerces every parameter of the command that runs through a pydantic ``TypeAdapter`` it
builds on first use, defaults and absent options included: for ``saga sparql`` that imports
pydantic and builds nine adapters, about 0.1 s of CPU in a command whose floor is 0.3 s. Most
values need none of it: an absent option is ``None``, a string argument is itself, ``--max-rows
50`` is ``int("50")`` inside its bounds, a choice is typer's own ``coerce_cli_choice``, a path is
typer's own ``coerce_cli_path`` once the string is a :class:`~pathlib.Path`.

:func:`light_coercion` gives each parameter of a built command a coercion that takes only those
cases, where the result is the one typer's adapter returns (``tests/unit/cli/test_param_coercion.py``
compares them value by value over every ``saga`` command), and hands every other value (an
invalid one, a type it does not know) to typer's own coercion, built then as typer would have
built it. Error messages, exit codes and results therefore stay typer's. It uses one private hook
of typer's parameters (``_runtime_param``, the cache typer fills on first use); where a typer
version lacks it, parameters keep typer's coercion unchanged.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast, get_args, get_origin

try:  # typer's private helpers (0.29); another typer keeps its own coercion for every parameter
    from typer._param_types import coerce_cli_choice, coerce_cli_path, routes_to_path
    from typer._typing import is_literal_type, literal_values

    AVAILABLE = True
except ImportError:  # pragma: no cover - depends on the installed typer
    AVAILABLE = False

if TYPE_CHECKING:
    from typer._click import Command, Context, Parameter
    from typer.core import TyperOption

#: Most digits of a number read here (a longer one goes to typer's coercion).
_DIGITS = 17


class _Declined(Exception):
    """The value is not one whose coerced result is certain here: typer's own coercion takes it."""


class LightCoercion:
    """A parameter's runtime coercion: the certain cases here, every other value through typer's."""

    def __init__(self, param: Parameter) -> None:
        """Coerce values of ``param`` (a typer argument or option)."""
        self._descriptor = param.type_descriptor  # type: ignore[attr-defined]
        self._typer: Any = None

    def coerce(self, value: Any, param: Parameter, ctx: Context) -> Any:
        """The coerced value, as typer's ``RuntimeParam.coerce`` returns it (or raises)."""
        try:
            return _coerce(value, param, ctx, self._descriptor)
        except _Declined:
            return self._full().coerce(value, param=param, ctx=ctx)

    def _full(self) -> Any:
        if self._typer is None:
            from typer._coercion import build_runtime_param

            self._typer = build_runtime_param(self._descriptor)
        return self._typer


def light_coercion(command: Command) -> Command:
    """Give every parameter of ``command`` and of its subcommands a :class:`LightCoercion`; returns it.

    Their ``--help`` options too: typer makes one per command when it first parses, and coerces its
    absent value like any other.
    """
    for param in command.params:
        light_param(param)
    own_help_option = command.get_help_option

    def get_help_option(ctx: Context) -> TyperOption | None:
        option = own_help_option(ctx)
        if option is not None:
            light_param(option)
        return option

    command.get_help_option = get_help_option  # type: ignore[method-assign]
    for sub in getattr(command, "commands", {}).values():
        light_coercion(sub)
    return command


def light_param(param: Parameter) -> None:
    """Give ``param`` a :class:`LightCoercion` if it is a typer parameter whose coercion is not built yet."""
    if AVAILABLE and hasattr(param, "type_descriptor") and getattr(param, "_runtime_param", False) is None:
        param._runtime_param = LightCoercion(param)  # type: ignore[attr-defined]


def _coerce(value: Any, param: Parameter, ctx: Context, descriptor: Any) -> Any:
    multiple = param.multiple or param.nargs == -1
    if value is None:  # typer's RuntimeParam.coerce, before any adapter
        return () if multiple else None
    if multiple and isinstance(value, str):
        raise _Declined
    info = descriptor.parameter_info
    if descriptor.file_annotation is not None or info.parser is not None:
        raise _Declined
    annotation = descriptor.annotation
    if get_origin(annotation) is list:
        (item_type,) = get_args(annotation)
        if not isinstance(value, list | tuple):
            value = [value]
        return [_leaf(item, item_type, info, param, ctx) for item in value]
    return _leaf(value, annotation, info, param, ctx)


def _leaf(value: Any, annotation: Any, info: Any, param: Parameter, ctx: Context) -> Any:
    """One value of a leaf annotation, as typer's ``build_leaf_adapter`` would coerce it, else :class:`_Declined`."""
    if (isinstance(annotation, type) and issubclass(annotation, Enum)) or is_literal_type(annotation):
        choices = list(cast("type[Enum]", annotation)) if isinstance(annotation, type) else literal_values(annotation)
        if isinstance(value, str):
            _unicode(value)
        try:
            return coerce_cli_choice(value, choices=choices, case_sensitive=info.case_sensitive, ctx=ctx)
        except ValueError:
            raise _Declined from None
    if annotation is int or annotation is float:
        return _number(value, annotation, info)
    if annotation is str:
        if type(value) is not str:
            raise _Declined
        return _unicode(value)
    if annotation is bool:
        if type(value) is not bool:
            raise _Declined
        return value
    if routes_to_path(annotation, info):
        return _path(value, annotation, info, param, ctx)
    raise _Declined


def _number(value: Any, annotation: type[Any], info: Any) -> Any:
    if info.clamp:
        raise _Declined
    if type(value) is str:
        if not _plain_number(value, decimals=annotation is float):
            raise _Declined
        number: Any = annotation(value)
    elif (type(value) is int and abs(value) < 2**53) or (type(value) is float and annotation is float):
        number = annotation(value)
        if number != number or abs(number) == float("inf"):
            raise _Declined
    else:
        raise _Declined
    if (info.min is not None and not number >= info.min) or (info.max is not None and not number <= info.max):
        raise _Declined  # typer's message for a value out of bounds
    return number


def _plain_number(text: str, *, decimals: bool) -> bool:
    """Whether ``text`` is ``-12``, ``0`` or (with ``decimals``) ``3.25``, which every reader reads alike.

    ASCII digits only: no ``+``, spaces, underscores, exponent or leading zeros, which :func:`int`,
    :func:`float` and pydantic might read differently.
    """
    whole, dot, fraction = text.removeprefix("-").partition(".")
    if dot and (not decimals or not _digits(fraction)):
        return False
    return _digits(whole) and (whole == "0" or whole[0] != "0")


def _digits(text: str) -> bool:
    return 0 < len(text) <= _DIGITS and text.isascii() and text.isdigit()


def _path(value: Any, annotation: Any, info: Any, param: Parameter, ctx: Context) -> Any:
    path_type = info.path_type
    if path_type is None and isinstance(annotation, type) and issubclass(annotation, Path):
        path_type = annotation
    if path_type is Path:
        if type(value) is str and value and "\x00" not in value:
            value = Path(_unicode(value))
        elif not isinstance(value, Path):
            raise _Declined
    elif (path_type is not None and path_type is not str) or type(value) is not str:
        raise _Declined
    try:
        return coerce_cli_path(value, info, path_type=path_type, param=param, ctx=ctx)  # type: ignore[arg-type]
    except Exception:  # typer's own coercion raises its own error for this value
        raise _Declined from None


def _unicode(text: str) -> str:
    """``text`` when pydantic reads it as a string: one holding a lone surrogate (undecodable argv) it rejects."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _Declined from None
    return text

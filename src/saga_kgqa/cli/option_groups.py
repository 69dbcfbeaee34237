"""Groups of options declared once and shared by several commands (typer has no such notion).

A group is a frozen dataclass that subclasses :class:`OptionGroup`; each field is one option,
annotated as typer expects (``Annotated[type, typer.Option(...)]``) with its default. A command
decorated with :func:`with_option_groups` takes the whole group as one parameter::

    @dataclass(frozen=True)
    class GraphOptions(OptionGroup):
        data: DataOption = None
        endpoint: EndpointOption = None

    @with_option_groups
    def sparql(query: str, *, graph: GraphOptions) -> None:
        graph.endpoint ...

Typer sees the group's fields as ordinary parameters, in the place of the group's parameter
(so ``--help`` lists them in that order, with the names, defaults and help texts declared on the
fields), and the command receives them gathered into the dataclass. A group parameter needs no
default (make it keyword-only): the defaults are its fields'.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from typing import Any, TypeVar

_Command = TypeVar("_Command", bound=Callable[..., Any])


class OptionGroup:
    """Base of an option group: subclass it with a frozen dataclass whose fields are the options."""


def _group_class(annotation: Any) -> type[Any] | None:
    if isinstance(annotation, type) and issubclass(annotation, OptionGroup) and dataclasses.is_dataclass(annotation):
        return annotation
    return None


def _expanded(group: type[Any]) -> list[inspect.Parameter]:
    hints = typing.get_type_hints(group, include_extras=True)
    parameters = []
    for field in dataclasses.fields(group):
        default = field.default if field.default is not dataclasses.MISSING else inspect.Parameter.empty
        parameters.append(
            inspect.Parameter(field.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hints[field.name])
        )
    return parameters


def with_option_groups(command: _Command) -> _Command:
    """Expose ``command``'s :class:`OptionGroup` parameters to typer as their fields, and gather them back.

    Raises:
        TypeError: Two groups, or a group and the command, declare a parameter of the same name.
    """
    signature = inspect.signature(command, eval_str=True)
    groups: dict[str, tuple[type[Any], list[str]]] = {}
    parameters: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        group = _group_class(parameter.annotation)
        if group is None:
            parameters.append(parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY))
            continue
        fields = _expanded(group)
        groups[parameter.name] = (group, [field.name for field in fields])
        parameters.extend(fields)
    names = [parameter.name for parameter in parameters]
    if len(set(names)) != len(names):
        raise TypeError(f"{command.__qualname__}: option groups repeat a parameter name")

    @functools.wraps(command)
    def gathered(**values: Any) -> Any:
        for name, (group, fields) in groups.items():
            values[name] = group(**{field: values.pop(field) for field in fields})
        return command(**values)

    # Typer reads the signature (inspect follows __signature__) and, for plain annotations, the type hints.
    gathered.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    gathered.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters} | {
        "return": signature.return_annotation
    }
    return typing.cast(_Command, gathered)

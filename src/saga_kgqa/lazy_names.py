"""A package door that imports each public name's module on first use (PEP 562).

Packages whose public names live in heavy modules (pydantic models, rdflib's SPARQL parser, the
graph builders) name them in their ``__init__`` without importing them, so a command that needs
one module of the package does not pay for the others at start-up (issues 27 and 39).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, homes: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``, which loads each name from its home module when first asked.

    The first look-up of a name imports its module and stores the value in ``namespace`` (the
    package's ``globals()``), so later look-ups find it without calling here.

    Args:
        package: The package's ``__name__``.
        homes: Public name to the module that defines it (a name starting with ``.`` is
            relative to ``package``).
        namespace: The package's ``globals()``.
    """

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home, package), name)
        namespace[name] = value
        return value

    return __getattr__

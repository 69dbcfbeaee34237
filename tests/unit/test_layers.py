"""Rooms stand on the rooms below them: no import, however lazy, reaches a room above.

Every import statement counts: top-level, inside functions (a lazy import is still an edge),
and under ``if TYPE_CHECKING:``. The floors are those of ``docs/architecture.md``; only the
old-path shims (``saga_kgqa.graph`` and ``saga_kgqa.mars.studio``), which re-export the new homes
for embedders and old ``langgraph.json`` files, may point anywhere, and the agent package's door names
the two public functions that open graphs from the composition root (loaded on first use).
"""

from __future__ import annotations

import ast
from pathlib import Path

import saga_kgqa

ROOT = Path(saga_kgqa.__file__).resolve().parent

#: room -> the rooms it must never import (it stands below them).
NEVER: dict[str, frozenset[str]] = {
    "kg": frozenset({"schema", "tools", "agent", "mars", "eval", "cli", "serve", "app"}),
    "schema": frozenset({"tools", "agent", "mars", "eval", "cli", "serve", "app"}),
    "state": frozenset({"tools", "agent", "mars", "app"}),
    "tools": frozenset({"agent", "mars", "eval", "cli", "serve", "app"}),
    "agent": frozenset({"mars", "eval", "cli", "serve", "app"}),
    "mars": frozenset({"eval", "cli", "serve", "app"}),
    "eval": frozenset({"cli", "serve"}),
    "app": frozenset({"cli", "serve"}),
}
#: Old import paths kept as re-exports of the new homes (they stand above everything they name).
SHIMS = ("saga_kgqa.graph", "saga_kgqa.mars.studio")
#: What the old ``saga_kgqa.graph`` package names now lives in ``agent`` and ``app``: importing it counts as both.
SHIM_ROOMS = {"graph": ("agent", "app")}
#: The documented public API ``saga_kgqa.agent.build_graph`` / ``toolbox_from_context`` (README, docs/):
#: the only upward names a door may carry, each named here.
DOOR_EXPORTS = frozenset(
    {
        ("saga_kgqa.agent", "saga_kgqa.app.graphs.build_graph"),
        ("saga_kgqa.agent", "saga_kgqa.app.defaults.toolbox_from_context"),
    }
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "saga_kgqa" else ""


def _imported(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):  # every statement: lazy and TYPE_CHECKING imports too
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return found


def upward_imports(module: str, source: str) -> list[str]:
    """The imports of ``module`` (given its source) that reach a room above it (``line: target``)."""
    if module.startswith(SHIMS):
        return []
    forbidden = NEVER.get(_room(module), frozenset())
    broken = []
    for line, target in _imported(ast.parse(source)):
        if (module, target) in DOOR_EXPORTS:
            continue
        rooms = SHIM_ROOMS.get(_room(target), (_room(target),))
        if forbidden.intersection(rooms):
            broken.append(f"{line}: {target}")
    return broken


def test_no_room_imports_a_room_above_it() -> None:
    broken = {}
    for path in sorted(ROOT.rglob("*.py")):
        module = _module_name(path)
        if found := upward_imports(module, path.read_text(encoding="utf-8")):
            broken[module] = found
    assert broken == {}


def test_lazy_type_checking_and_shim_imports_count() -> None:
    source = """
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from saga_kgqa.agent.toolbox import SagaToolbox
def default():
    from saga_kgqa.app.defaults import toolbox_from_context
    import saga_kgqa.graph
"""
    assert upward_imports("saga_kgqa.tools.context", source) == [
        "4: saga_kgqa.agent.toolbox.SagaToolbox",
        "6: saga_kgqa.app.defaults.toolbox_from_context",
        "7: saga_kgqa.graph",
    ]
    assert upward_imports("saga_kgqa.cli.ask_command", source) == []
    assert upward_imports("saga_kgqa.graph.studio", "from saga_kgqa.app.studio import graph\n") == []
    door = "from saga_kgqa.app.graphs import build_graph\nfrom saga_kgqa.app.open import open_graph\n"
    assert upward_imports("saga_kgqa.agent", door) == ["2: saga_kgqa.app.open.open_graph"]
    assert upward_imports("saga_kgqa.agent.builder", door) == [
        "1: saga_kgqa.app.graphs.build_graph",
        "2: saga_kgqa.app.open.open_graph",
    ]

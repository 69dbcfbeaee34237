"""Imports point down: no module of the package imports itself back through others.

Every import counts: top-level ones, ``if TYPE_CHECKING:`` ones (a type-only import still says which
module stands on which) and those inside functions (a lazy import only delays the edge; a cycle hidden
behind one is still a cycle). A package ``__init__`` that re-exports its modules is not part of a
cycle through them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import saga_kgqa

ROOT = Path(saga_kgqa.__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.Module, modules: set[str]) -> set[str]:
    found: set[str] = set()
    for child in ast.walk(tree):  # every statement, function bodies included
        if isinstance(child, ast.ImportFrom) and child.module and child.module.startswith("saga_kgqa"):
            for alias in child.names:
                sub = f"{child.module}.{alias.name}"
                found.add(sub if sub in modules else child.module)
        elif isinstance(child, ast.Import):
            found |= {a.name for a in child.names if a.name.startswith("saga_kgqa")}
    return found


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in ROOT.rglob("*.py")}
    modules = set(files)
    packages = {name for name, path in files.items() if path.name == "__init__.py"}
    graph = {}
    for name, path in files.items():
        if name in packages:
            continue  # re-exporting packages are the doors, not the rooms
        imported = _imports(ast.parse(path.read_text(encoding="utf-8")), modules)
        graph[name] = {m for m in imported if m in modules and m not in packages and m != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    assert _cycles(_graph()) == []


def test_a_cycle_behind_a_function_level_import_is_seen() -> None:
    modules = {"saga_kgqa.a", "saga_kgqa.b"}
    lazy = ast.parse("def f():\n    from saga_kgqa.b import thing\n")
    assert _imports(lazy, modules) == {"saga_kgqa.b"}
    assert _cycles({"saga_kgqa.a": {"saga_kgqa.b"}, "saga_kgqa.b": {"saga_kgqa.a"}}) == [["saga_kgqa.a", "saga_kgqa.b"]]

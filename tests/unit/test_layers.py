"""Rooms stand on the rooms below them: no import, however lazy, reaches a room above.

Every import statement counts: top-level, inside functions (a lazy import is still an edge),
and under ``if TYPE_CHECKING:``. The floors are those of ``docs/architecture.md``; every room of the
package has a floor here (a new folder fails :func:`test_every_room_has_a_floor` until it gets one), and
the modules at the package's top (errors, context, settings …) stand on nothing but ``kg``. The one
exception is the package door ``saga_kgqa/__init__.py``, whose public names load lazily from the rooms
that define them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import saga_kgqa

ROOT = Path(saga_kgqa.__file__).resolve().parent

#: room -> its floor. A room imports only rooms on lower floors (and the package's top modules).
FLOORS: dict[str, int] = {
    "config": 1,
    "kg": 1,
    "schema": 2,
    "benchmarks": 2,
    "answer_shape": 2,
    "prompts": 2,
    "checks": 3,
    "dialects": 3,
    "state": 4,
    "tools": 5,
    "sources": 6,
    "examples": 6,
    "graph": 7,
    "mars": 8,
    "runs": 8,
    "eval": 9,
    "app": 10,
    "serve": 11,
    "cli": 12,
}
#: Folders that hold data, not code.
DATA_ROOMS = frozenset({"example_graph"})
#: The package's top modules (``errors.py``, ``config/context.py`` …) stand on ``kg`` at most.
TOP_FLOOR = 1


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _room(module: str) -> str:
    parts = module.split(".")
    if len(parts) < 2 or parts[0] != "saga_kgqa":
        return ""
    return parts[1] if parts[1] in FLOORS or parts[1] in DATA_ROOMS else f"<top>.{parts[1]}"


def _floor(room: str) -> int:
    return FLOORS[room] if room in FLOORS else 0 if room.startswith("<top>") else -1


def _imported(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):  # every statement: lazy and TYPE_CHECKING imports too
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return found


def upward_imports(module: str, source: str) -> list[str]:
    """The imports of ``module`` (given its source) that reach a room on its floor or above (``line: target``)."""
    if module in ("saga_kgqa", "saga_kgqa.__main__"):
        return []
    room = _room(module)
    ceiling = TOP_FLOOR if room.startswith("<top>") else FLOORS[room]
    broken = []
    for line, target in _imported(ast.parse(source)):
        other = _room(target)
        if not other or other == room or (other.startswith("<top>") and room.startswith("<top>")):
            continue
        if other.startswith("<top>"):
            continue  # the top modules sit below every room
        if FLOORS[other] > ceiling or (FLOORS[other] == ceiling and not room.startswith("<top>")):
            broken.append(f"{line}: {target}")
    return broken


def test_every_room_has_a_floor() -> None:
    # A folder left with only __pycache__ (a room that moved away) is not a room.
    rooms = {
        p.name
        for p in ROOT.iterdir()
        if p.is_dir() and not p.name.startswith(("_", ".")) and any(c.name != "__pycache__" for c in p.iterdir())
    }
    assert rooms - DATA_ROOMS == set(FLOORS)


def test_no_room_imports_a_room_above_it() -> None:
    broken = {}
    for path in sorted(ROOT.rglob("*.py")):
        module = _module_name(path)
        if found := upward_imports(module, path.read_text(encoding="utf-8")):
            broken[module] = found
    assert broken == {}


def test_lazy_type_checking_and_sibling_imports_count() -> None:
    source = """
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from saga_kgqa.graph.builder import SagaGraph
def default():
    from saga_kgqa.app.defaults import toolbox_from_context
    import saga_kgqa.examples.serving
"""
    assert upward_imports("saga_kgqa.tools.context", source) == [
        "4: saga_kgqa.graph.builder.SagaGraph",
        "6: saga_kgqa.app.defaults.toolbox_from_context",
        "7: saga_kgqa.examples.serving",
    ]
    assert upward_imports("saga_kgqa.sources.bridging", source) == [
        "4: saga_kgqa.graph.builder.SagaGraph",
        "6: saga_kgqa.app.defaults.toolbox_from_context",
        "7: saga_kgqa.examples.serving",
    ]
    assert upward_imports("saga_kgqa.cli.ask.command", source) == []
    assert upward_imports("saga_kgqa.examples.leakage", "import saga_kgqa.sources.bridging\n") == [
        "1: saga_kgqa.sources.bridging"
    ]
    assert upward_imports("saga_kgqa.errors", "from saga_kgqa.schema import SchemaIndex\n") == [
        "1: saga_kgqa.schema.SchemaIndex"
    ]
    assert upward_imports("saga_kgqa", "from saga_kgqa.app.graphs import build_graph\n") == []


#: The rooms that may import the evaluation harness: the harness itself and the ``saga eval`` commands.
EVAL_ROOMS = ("saga_kgqa.eval", "saga_kgqa.cli.eval")


def _dynamic_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """Module names given as text to ``importlib.import_module`` or ``__import__``."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        first = node.args[0]
        if name in ("import_module", "__import__") and isinstance(first, ast.Constant) and isinstance(first.value, str):
            found.append((node.lineno, first.value))
    return found


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def harness_imports(module: str, source: str) -> list[str]:
    """The imports of ``module`` that reach the evaluation harness (``saga_kgqa.eval``) or ``bench``.

    Only the harness and the ``saga eval`` commands may import ``saga_kgqa.eval``; no module of the
    package imports ``bench`` (the benches stand on the product, never the reverse).
    """
    tree = ast.parse(source)
    found = []
    for line, target in sorted(_imported(tree) + _dynamic_imports(tree)):
        harness = _within(target, "saga_kgqa.eval") and not any(_within(module, room) for room in EVAL_ROOMS)
        if harness or _within(target, "bench"):
            found.append(f"{line}: {target}")
    return found


def test_no_product_module_imports_the_harness_or_bench() -> None:
    broken = {}
    for path in sorted(ROOT.rglob("*.py")):
        module = _module_name(path)
        if found := harness_imports(module, path.read_text(encoding="utf-8")):
            broken[module] = found
    assert broken == {}


def test_harness_imports_count_lazy_and_dynamic_ones() -> None:
    source = """
import bench.outcomes
from saga_kgqa import eval
def later():
    from saga_kgqa.eval.qa.scorer import score_question
    importlib.import_module("saga_kgqa.eval.qa.metrics")
    from bench import scale
"""
    everything = [
        "2: bench.outcomes",
        "3: saga_kgqa.eval",
        "5: saga_kgqa.eval.qa.scorer.score_question",
        "6: saga_kgqa.eval.qa.metrics",
        "7: bench.scale",
    ]
    assert harness_imports("saga_kgqa.serve.mcp.ask_run", source) == everything
    assert harness_imports("saga_kgqa.evaluation", source) == everything
    assert harness_imports("saga_kgqa.cli.ask.command", source) == everything
    assert harness_imports("saga_kgqa.eval.qa.scorer", source) == ["2: bench.outcomes", "7: bench.scale"]
    assert harness_imports("saga_kgqa.cli.eval.run", source) == ["2: bench.outcomes", "7: bench.scale"]
    assert harness_imports("saga_kgqa.runs.stream", "import benchmarks\nfrom saga_kgqa.evaluation import x\n") == []

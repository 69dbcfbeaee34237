"""No face opens a graph, a schema index, a toolbox, a source or a run itself: they ask :mod:`saga_kgqa.app`.

The faces are the ``saga`` commands (``cli/``), the servers (``serve/``) and the LangGraph
server's modules (``app/studio.py``, ``app/mars_studio.py``). The walk reads every statement of
their source, imports inside functions included, and fails on a constructor or opener called
there, or on an import of a module whose job is opening (the composition root's).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import saga_kgqa

ROOT = Path(saga_kgqa.__file__).resolve().parent

#: Where the faces live.
FACES = (*sorted((ROOT / "cli").rglob("*.py")), *sorted((ROOT / "serve").rglob("*.py")))
STUDIOS = (ROOT / "app" / "studio.py", ROOT / "app" / "mars_studio.py")

#: Calls that construct a graph, a schema index, a toolbox or a source: only the composition root makes them.
CONSTRUCTORS = frozenset(
    {
        "KnowledgeGraph",
        "SagaToolbox",
        "GroundingToolkit",
        "ToolContext",
        "SourceSet",
        "OpenSource",
        "open_backend",
        "open_source_graph",
        "build_schema_index",
        "build_dialect_index",
        "cached_survey",
        "SchemaIndex.load",
    }
)
#: Calls that assemble a run (checkpoints, a compiled graph, the stream): a face asks
#: :func:`saga_kgqa.app.run.open_run` or :class:`saga_kgqa.app.served.ServedAgent` for the run and streams
#: it through :meth:`~saga_kgqa.app.run.Run.stream`. The studio modules compile the graphs ``langgraph dev``
#: serves: that is their job.
RUN_ASSEMBLY = frozenset({"CheckpointStore", "build_graph", "build_mars_graph", "stream_run"})

#: Modules that open things; a face reaches them only through the composition root.
OPENING_MODULES = frozenset({"saga_kgqa.kg.opening"})


def _called(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name) and f"{func.value.id}.{func.attr}" in CONSTRUCTORS:
            return f"{func.value.id}.{func.attr}"
        return func.attr
    return None


def violations(source: str, *, runs: bool = True) -> list[str]:
    """What a face's source does that only the composition root may do (``line: what``).

    ``runs``: count a run's assembly too (:data:`RUN_ASSEMBLY`; not in the studio modules).
    """
    forbidden = CONSTRUCTORS | RUN_ASSEMBLY if runs else CONSTRUCTORS
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and (name := _called(node)) in forbidden:
            found.append(f"{node.lineno}: calls {name}")
        elif isinstance(node, ast.ImportFrom) and node.module in OPENING_MODULES:
            found.append(f"{node.lineno}: imports {node.module}")
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno}: imports {a.name}" for a in node.names if a.name in OPENING_MODULES]
    return sorted(found, key=lambda line: (int(line.split(":")[0]), line))


@pytest.mark.parametrize("path", [*FACES, *STUDIOS], ids=lambda p: str(p.relative_to(ROOT)))
def test_a_face_asks_the_composition_root(path: Path) -> None:
    assert violations(path.read_text(encoding="utf-8"), runs=path not in STUDIOS) == []


def test_a_face_that_assembles_a_run_is_caught() -> None:
    face = """
def ask(request, toolbox):
    with CheckpointStore(request.checkpoint_db) as store:
        graph = build_graph(toolbox_factory=lambda _: toolbox, checkpointer=store.saver)
        stream_run(graph, {"question": request.question}, {}, None, [])
"""
    assert violations(face) == ["3: calls CheckpointStore", "4: calls build_graph", "5: calls stream_run"]
    assert violations(face, runs=False) == []


def test_the_walk_sees_calls_and_imports_inside_functions() -> None:
    face = """
def run(record):
    from saga_kgqa.kg.opening import open_backend
    from saga_kgqa.sources import session
    graph = session.KnowledgeGraph(open_backend(data=record.data))
    return SagaToolbox(graph, SchemaIndex.load(record.schema_index)), session.SourceSet(record)
"""
    assert violations(face) == [
        "3: imports saga_kgqa.kg.opening",
        "5: calls KnowledgeGraph",
        "5: calls open_backend",
        "6: calls SagaToolbox",
        "6: calls SchemaIndex.load",
        "6: calls SourceSet",
    ]


def test_the_faces_are_found() -> None:
    names = {str(path.relative_to(ROOT)) for path in FACES}
    assert {"cli/ask/run.py", "cli/tools/commands.py", "serve/mcp/server.py", "serve/web/runs.py"} <= names
    assert "serve/text2sparql/main.py" in names
    assert all(path.is_file() for path in STUDIOS)

"""Nothing opens a graph, a schema index, a toolbox or a source itself, no face a run: they ask :mod:`saga_kgqa.app`.

The walk reads every module of every room of the package, imports inside functions included,
and fails on a constructor or opener called there, or on an import of a module whose job is
opening (the composition root's). Constructing is allowed only in ``tools/`` (where the toolbox,
its views and the tool context are defined) and ``app/`` (the composition root), except the
LangGraph server's modules there (``app/studio.py``, ``app/mars_studio.py``), which are faces;
elsewhere only what :data:`ALLOWED` names, with its reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import saga_kgqa

ROOT = Path(saga_kgqa.__file__).resolve().parent

#: The rooms whose job is constructing: the tools' definitions and the composition root.
BUILDERS = ("tools", "app")
STUDIOS = (ROOT / "app" / "studio.py", ROOT / "app" / "mars_studio.py")
#: Every module the walk checks: all of the package but the builders (the studios are checked).
WALKED = tuple(
    path for path in sorted(ROOT.rglob("*.py")) if path.relative_to(ROOT).parts[0] not in BUILDERS or path in STUDIOS
)
#: Where the faces live (the walk covers them with the rest).
FACES = tuple(path for path in WALKED if path.relative_to(ROOT).parts[0] in ("cli", "serve"))

#: Calls that construct a graph, a schema index, a toolbox or a source: only the composition root makes them.
CONSTRUCTORS = frozenset(
    {
        "KnowledgeGraph",
        "SagaToolbox",
        "ToolView",
        "ToolContext",
        "SourceSet",
        "OpenSource",
        "open_backend",
        "open_source_graph",
        "open_record",
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

#: Modules outside the builders that may make some of those calls (or imports), and why.
ALLOWED: dict[str, tuple[frozenset[str], str]] = {
    "schema/content_cache.py": (
        frozenset({"SchemaIndex.load"}),
        "reads back the index it cached per graph content; app.open.open_schema decides when it is used",
    ),
    "sources/session.py": (
        frozenset(
            {
                "saga_kgqa.kg.opening",
                "open_backend",
                "KnowledgeGraph",
                "open_source_graph",
                "open_record",
                "OpenSource",
                "cached_survey",
                "SchemaIndex.load",
            }
        ),
        "a source set's default opener opens a catalog record's graph (with its scopes), survey and declared "
        "index on first use (open_record); the composition root's opener (app.sources) opens each once per "
        "process through it. Its toolbox is never built there: app.sources.open_source_toolbox opens it",
    ),
}


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


def _allowed(path: Path, violation: str) -> bool:
    names, _reason = ALLOWED.get(str(path.relative_to(ROOT)), (frozenset(), ""))
    return violation.split(" ")[-1] in names


@pytest.mark.parametrize("path", WALKED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_room_asks_the_composition_root(path: Path) -> None:
    # A face (cli/, serve/) asks app for its run too; graph/ and runs/ build and stream runs: their job.
    found = violations(path.read_text(encoding="utf-8"), runs=path in FACES)
    assert [v for v in found if not _allowed(path, v)] == []


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_each_allowance_is_used_and_gives_a_reason(name: str) -> None:
    names, reason = ALLOWED[name]
    used = {v.split(" ")[-1] for v in violations((ROOT / name).read_text(encoding="utf-8"), runs=False)}
    assert names <= used, f"{name} no longer needs {sorted(names - used)}: narrow ALLOWED"
    assert len(reason) > 40 and not {"SagaToolbox", "ToolView", "ToolContext"} & names


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


def test_the_walk_covers_every_room() -> None:
    names = {str(path.relative_to(ROOT)) for path in FACES}
    assert {"cli/ask/run.py", "cli/tools/commands.py", "serve/mcp/server.py", "serve/web/runs.py"} <= names
    assert "serve/text2sparql/main.py" in names
    assert all(path.is_file() for path in STUDIOS) and set(STUDIOS) <= set(WALKED)
    rooms = {path.relative_to(ROOT).parts[0] for path in WALKED if len(path.relative_to(ROOT).parts) > 1}
    every = {path.name for path in ROOT.iterdir() if path.is_dir() and any(path.rglob("*.py"))}
    assert rooms == every - set(BUILDERS) | {"app"}
    assert {"graph", "sources", "runs", "mars", "schema", "kg", "eval"} <= rooms

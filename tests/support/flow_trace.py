"""Trace ``saga ask --source X``'s set-up: the modules on the path from the command to each thing a run is made of.

Run as ``python -m tests.support.flow_trace WORKDIR`` (a fresh process, so nothing is opened or cached
before): it writes a one-source catalog over the lab graph, runs ``saga ask --source lab`` in-process with
a scripted model under :func:`sys.setprofile`, and prints one JSON object: for each *maker* in
:data:`MAKERS`, the modules on the call stack (from the command down, package-relative paths) the first
time the maker is entered, and the flow's modules (every module on those paths, once). The counting
rule is in ``docs/architecture.md`` ("One flow"); ``tests/integration/cli/test_one_flow.py`` reads the output.

Not counted: code run while a module is imported (a frame of the import machinery on the stack), what a
maker does below itself (only the first entry of each maker is taken), and calls that make none of the
makers (option parsing, the live view). Every thread is traced (``threading.setprofile``).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

#: What a run is made of, and where each is made: ``(module, qualified name)``; ``*`` is any function of the module.
MAKERS: dict[str, frozenset[tuple[str, str]]] = {
    "settings": frozenset({("config/context.py", "SagaContext.from_env")}),
    "model": frozenset({("models.py", "ConfiguredModelFactory.settings_for")}),
    "checkpoints": frozenset({("runs/persistence.py", "CheckpointStore.__init__")}),
    "catalog": frozenset({("config/catalog.py", "Catalog.load"), ("config/catalog.py", "Catalog.from_env")}),
    "sources": frozenset({("sources/session.py", "SourceSet.__init__")}),
    "store": frozenset({("kg/embedded/store.py", "*"), ("kg/remote/endpoint.py", "*")}),
    "guard": frozenset({("kg/knowledge_graph.py", "KnowledgeGraph.__init__")}),
    "schema": frozenset({("schema/build.py", "*"), ("schema/model.py", "SchemaIndex.load")}),
    "toolbox": frozenset({("tools/toolbox.py", "SagaToolbox.__init__")}),
    "graph": frozenset({("graph/builder.py", "build_graph"), ("mars/builder.py", "build_mars_graph")}),
    "config": frozenset({("graph/builder.py", "question_run_config")}),
}
#: Where the command starts.
COMMAND = ("cli/ask/command.py", "ask")
#: The source the traced run asks.
LAB = Path(__file__).resolve().parents[1] / "data" / "autoschema" / "lab.trig"


class FlowTracer:
    """A profile function that records, per maker, the saga_kgqa call stack at its first entry."""

    def __init__(self, package_dir: Path) -> None:
        """Trace the modules under ``package_dir`` (the installed ``saga_kgqa``)."""
        self.prefix = f"{package_dir}/"
        self.paths: dict[str, list[str]] = {}
        self.started = False

    def _module(self, frame: FrameType) -> str | None:
        name = frame.f_code.co_filename
        return name[len(self.prefix) :] if name.startswith(self.prefix) else None

    def __call__(self, frame: FrameType, event: str, _arg: Any) -> None:
        """Take one profile event (only calls of saga_kgqa functions matter)."""
        if event != "call" or len(self.paths) == len(MAKERS):
            return
        module = self._module(frame)
        if module is None:
            return
        where = (module, frame.f_code.co_qualname)
        self.started = self.started or where == COMMAND
        if not self.started:
            return
        for maker, places in MAKERS.items():
            if maker not in self.paths and (where in places or (module, "*") in places):
                path = self._stack(frame)
                if path is not None:
                    self.paths[maker] = path

    def _stack(self, frame: FrameType) -> list[str] | None:
        """The saga_kgqa modules on the stack from the command down (``None`` while a module is being imported).

        What calls the command (the CLI group, its option wrappers) is not part of the flow.
        """
        stack: list[str] = []
        at: FrameType | None = frame
        while at is not None:
            if at.f_code.co_filename.startswith("<frozen importlib"):
                return None
            module = self._module(at)
            if module is not None and (not stack or stack[-1] != module):
                stack.append(module)
            if (module, at.f_code.co_qualname) == COMMAND:
                return stack[::-1]
            at = at.f_back
        return None  # not below the command (another thread's work, started before it)


def trace(workdir: Path) -> dict[str, Any]:
    """Run ``saga ask --source lab`` in this process under the tracer; the paths and the command's exit code."""
    workdir.mkdir(parents=True, exist_ok=True)
    catalog = workdir / "catalog.toml"
    catalog.write_text(f'default_source = "lab"\n[sources.lab]\ndata = ["{LAB}"]\n', encoding="utf-8")
    script = workdir / "script.json"
    answer_type = json.dumps({"answer_type_label": "person", "answer_type_id": ""})
    script.write_text(json.dumps([answer_type, {"tool": "stop", "args": {}}]), encoding="utf-8")
    os.environ.update(
        SAGA_MODEL_FACTORY="tests.support.studio_models:scripted_factory",
        SAGA_TEST_SCRIPT=str(script),
        SAGA_SURVEY_DIR=str(workdir / "surveys"),
        LANGSMITH_TRACING="false",
    )
    from typer.testing import CliRunner

    import saga_kgqa
    from saga_kgqa.cli import app

    tracer = FlowTracer(Path(saga_kgqa.__file__).resolve().parent)
    command = ["ask", "Who works here?", "--json", "--quiet", "--source", "lab", "--catalog", str(catalog)]
    command += ["--checkpoint-db", str(workdir / "checkpoints.sqlite")]
    sys.setprofile(tracer)
    threading.setprofile(tracer)
    try:
        result = CliRunner().invoke(app, command)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    return {"exit_code": result.exit_code, "paths": tracer.paths}


def flow_modules(paths: dict[str, list[str]]) -> list[str]:
    """The modules of the flow: every module on a maker's path, once, in the order first met."""
    seen: list[str] = []
    for path in paths.values():
        for module in path:
            if module not in seen:
                seen.append(module)
    return seen


if __name__ == "__main__":
    traced = trace(Path(sys.argv[1]))
    print(json.dumps({**traced, "modules": flow_modules(traced["paths"])}))

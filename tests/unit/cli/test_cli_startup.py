"""``import saga_kgqa.cli`` and ``saga --help`` load no heavy stack; the command table agrees with the commands."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from typer.main import get_group

from saga_kgqa.cli import COMMANDS
from saga_kgqa.cli.groups import command_group
from saga_kgqa.cli.lazy_group import load_command

#: Top-level packages no start-up path may load (the ones the help path must not pay for).
HEAVY = (
    "langgraph",
    "langchain",
    "langchain_core",
    "langsmith",
    "openai",
    "scipy",
    "matplotlib",
    "numpy",
    "mcp",
    "starlette",
    "uvicorn",
)
#: Packages ``saga --help`` does not need either: the guard's parser, the store, pydantic.
NOT_FOR_HELP = (*HEAVY, "rdflib", "pyoxigraph", "pydantic", "SPARQLWrapper", "httpx")


def _loaded(code: str) -> set[str]:
    """Top-level packages a fresh interpreter has loaded after running ``code``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGCHAIN_")} | {"LANGSMITH_TRACING": "false"}
    listing = "print('@@modules@@')\nprint('\\n'.join(sorted({m.split('.')[0] for m in sys.modules})))"
    probe = f"{code}\nimport sys\n{listing}"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    # Only what follows the marker: a command's own output (help text) must not count as modules.
    return set(done.stdout.rsplit("@@modules@@", 1)[1].split())


def test_importing_the_cli_loads_no_heavy_stack() -> None:
    loaded = _loaded("import saga_kgqa.cli")
    assert "typer" in loaded  # the probe sees what the import loaded
    assert loaded.isdisjoint(NOT_FOR_HELP), sorted(loaded & set(NOT_FOR_HELP))


def test_saga_help_loads_no_heavy_stack() -> None:
    code = (
        "import sys\nfrom saga_kgqa.cli import main\nsys.argv = ['saga', '--help']\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert e.code in (0, None), e.code"
    )
    loaded = _loaded(code)
    assert "saga_kgqa" in loaded
    assert loaded.isdisjoint(NOT_FOR_HELP), sorted(loaded & set(NOT_FOR_HELP))


@pytest.mark.parametrize(
    "command", ["sparql", "lookup", "search", "examples", "execute", "load", "index", "mcp", "serve"]
)
def test_graph_commands_load_no_agent_stack(command: str) -> None:
    # Loading (not running) the command builds its options: none may pull in LangGraph, OpenAI or scipy.
    loaded = _loaded(
        f"from saga_kgqa.cli import COMMANDS\nfrom saga_kgqa.cli.lazy_group import load_command\n"
        f"load_command({command!r}, COMMANDS[{command!r}])"
    )
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_summary_is_the_commands_own_help(name: str) -> None:
    command = load_command(name, COMMANDS[name])
    own = " ".join((command.help or "").split("\n\n")[0].split())
    assert own == COMMANDS[name].summary


def test_each_module_registers_only_commands_in_the_table() -> None:
    for module in {entry.module for entry in COMMANDS.values()}:
        scratch = command_group("scratch")
        __import__(module, fromlist=["register"]).register(scratch)
        names = set(get_group(scratch).commands)
        listed = {name for name, entry in COMMANDS.items() if entry.module == module}
        assert names == listed, module


def test_saga_sparql_runs_without_pydantic() -> None:
    # typer 0.29 coerces every option through a pydantic adapter; saga's light coercion takes the plain
    # values (saga_kgqa.cli.param_coercion), so a query on the example graph never imports pydantic.
    code = (
        "import sys\nfrom saga_kgqa.cli import main\n"
        "sys.argv = ['saga', 'sparql', 'SELECT ?s WHERE { ?s ?p ?o } LIMIT 2', '--max-rows', '5', '--timeout', '20']\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert e.code in (0, None), e.code"
    )
    loaded = _loaded(code)
    assert "pyoxigraph" in loaded  # the query ran
    assert "pydantic" not in loaded

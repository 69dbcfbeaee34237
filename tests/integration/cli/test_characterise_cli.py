"""Characterisation of the ``saga`` command line (issue 41): exit codes and stable output, pinned in goldens.

Each test runs commands in process (typer's CliRunner, as the other CLI tests do) over the example graph
shipped with the package, normalises what varies between runs (times, paths, thread ids) and compares
the result with ``tests/data/characterisation/cli_*.json``. ``SAGA_UPDATE_GOLDEN=1`` rewrites them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from saga_kgqa.cli import app
from saga_kgqa.config.settings import example_graph_path
from saga_kgqa.schema.survey_cache import forget_surveys
from tests.support.characterise import (
    ANSWERED_SPARQL,
    EMPTY_SPARQL,
    RUNS,
    check_golden,
    lines,
    normalise,
    run_key,
    scripted_env,
    scripted_setting,
)
from tests.support.keyed_models import case_question

WIDTH = 100


def invoke(args: list[str], roots: tuple[Path, ...] = ()) -> dict[str, Any]:
    """One command's exit code, stdout and stderr, normalised (JSON stdout kept as JSON)."""
    done = CliRunner().invoke(app, args, terminal_width=WIDTH)
    stdout: Any
    try:
        stdout = normalise(json.loads(done.stdout), roots) if done.stdout.lstrip().startswith(("{", "[")) else None
    except ValueError:
        stdout = None
    if stdout is None:
        stdout = lines(done.stdout, roots)
    return {"args": [str(a) for a in normalise(args, roots)], "exit": done.exit_code, "stdout": stdout,
            "stderr": lines(done.stderr, roots)}  # fmt: skip


@pytest.fixture
def plain_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No catalog file and no shell settings: the catalog is the one built from the environment (``example``)."""
    import os

    for name in list(os.environ):
        if name.startswith(("SAGA_", "OPENAI_")) and name != "SAGA_STORE_CACHE_DIR":
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SAGA_SURVEY_DIR", str(tmp_path / "surveys"))
    forget_surveys()
    return tmp_path


def _help_paths() -> list[list[str]]:
    """Every command path of ``saga`` (groups and leaves), walked from the click tree."""
    root = typer.main.get_command(app)
    found: list[list[str]] = [[]]

    def walk(command: Any, path: list[str], ctx: Any) -> None:
        # Typer vendors its own click: groups are told by their methods, not by a click class.
        if hasattr(command, "list_commands"):
            for name in command.list_commands(ctx):
                child = command.get_command(ctx, name)
                if child is None or child.hidden:
                    continue
                found.append([*path, name])
                walk(child, [*path, name], child.context_class(child, parent=ctx, info_name=name))

    walk(root, [], root.context_class(root, info_name="saga"))
    return found


def test_help_of_every_command_and_group(plain_env: Path) -> None:
    pinned = {}
    for path in _help_paths():
        done = CliRunner().invoke(app, [*path, "--help"], terminal_width=WIDTH)
        pinned[" ".join(["saga", *path])] = {"exit": done.exit_code, "stdout": lines(done.stdout)}
    check_golden("cli_help", pinned)


def test_tool_commands_on_the_example_graph(plain_env: Path) -> None:
    runs = [
        ["sparql", ANSWERED_SPARQL],
        ["sparql", "--json", ANSWERED_SPARQL],
        ["sparql", EMPTY_SPARQL],
        ["sparql", "DELETE WHERE { ?s ?p ?o }"],
        ["sparql", "SELECT ?x WHERE {"],
        ["execute", ANSWERED_SPARQL],
        ["execute", "--json", ANSWERED_SPARQL],
        ["execute", EMPTY_SPARQL],
        ["execute", "DROP ALL"],
        ["search", "Lovell"],
        ["search", "--json", "Lovell"],
        ["search", "moon"],
        ["lookup", "ex:Apollo13"],
        ["lookup", "--json", "ex:Apollo13"],
        ["lookup", "Jim Lovell"],
        ["examples", "ex:crewMember"],
        ["examples", "--json", "ex:crewMember"],
        ["examples", "ex:noSuchProperty"],
    ]
    check_golden("cli_tools", [invoke(args, (plain_env,)) for args in runs])


def test_source_commands_over_the_example_catalog(plain_env: Path) -> None:
    runs = [
        ["source", "list"],
        ["source", "list", "--json"],
        ["source", "categories"],
        ["source", "survey", "example"],
        ["source", "list"],
        ["source", "find", "moon"],
        ["source", "summary", "example"],
        ["source", "resolve", "example", "Jim Lovell"],
        ["source", "resolve", "example", "--json", "Apollo 13"],
        ["source", "expand", "example", "ex:Apollo13"],
        ["source", "bridge", "example", "example", "--json"],
        [
            "source", "join", "example",
            "PREFIX ex: <http://example.org/space/> SELECT ?key WHERE { ?key a ex:Astronaut ; ex:nationality ex:USSR }",
            "example",
            "PREFIX ex: <http://example.org/space/> SELECT ?m ?key WHERE { ?m ex:crewMember ?key }",
        ],
        ["source", "summary", "nowhere"],
    ]  # fmt: skip
    check_golden("cli_source", [invoke(args, (plain_env,)) for args in runs])


def test_ask_plain_and_json_with_a_scripted_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    setting = scripted_setting(tmp_path, ["cli", "cli-text"])
    pinned = []
    with scripted_env(setting, monkeypatch):
        db = str(tmp_path / "checkpoints.sqlite")
        for run in RUNS:
            for face, extra in (("cli", ["--json"]), ("cli-text", [])):
                question = case_question(run.question, run_key(face, run))
                args = ["ask", question, *extra, "--quiet", "--checkpoint-db", db]
                pinned.append({"run": run.name, **invoke(args, (tmp_path,))})
    check_golden("cli_ask", pinned)


CK25_QUESTIONS = """\
dataset:
  id: https://example.org/tiny/
  prefix: ck25
questions:
  - id: 1
    question:
      en: Which missions did Jim Lovell fly?
    query:
      sparql: |
        {answered}
  - id: 2
    question:
      en: Is the Moon a planet?
    query:
      sparql: |
        PREFIX ex: <http://example.org/space/> ASK {{ ex:TheMoon a ex:Planet }}
  - id: 3
    question:
      en: Which missions did Nobody fly?
    query:
      sparql: |
        {empty}
"""


def test_eval_gold_and_run_on_a_tiny_benchmark(plain_env: Path) -> None:
    data_dir = plain_env / "data"
    (data_dir / "text2sparql_ck25").mkdir(parents=True)
    (data_dir / "text2sparql_ck25" / "questions.yml").write_text(
        CK25_QUESTIONS.format(answered=ANSWERED_SPARQL, empty=EMPTY_SPARQL), encoding="utf-8"
    )
    official = {
        "ck25:1-en": {"http://example.org/space/Apollo8": 1, "http://example.org/space/Apollo13": 1},
        "ck25:2-en": {"false": 1},
        "ck25:3-en": {},
    }
    (data_dir / "text2sparql_ck25" / "ck25_true_result_set.json").write_text(json.dumps(official), encoding="utf-8")
    gold, out = plain_env / "gold.jsonl", plain_env / "run.jsonl"
    common = ["--data-dir", str(data_dir), "--data", str(example_graph_path())]
    pinned = [
        invoke(["eval", "gold", "ck25", "--out", str(gold), *common], (plain_env,)),
        invoke(["eval", "run", "ck25", "--answerer", "gold-replay", "--gold", str(gold), "--out", str(out), *common],
               (plain_env,)),
        invoke(["eval", "run", "ck25", "--answerer", "gold-replay", "--gold", str(gold), "--out", str(out), *common],
               (plain_env,)),
        invoke(["eval", "score", str(out), "--gold", str(gold)], (plain_env,)),
    ]  # fmt: skip
    records = [normalise(json.loads(line), (plain_env,)) for line in out.read_text(encoding="utf-8").splitlines()]
    check_golden("cli_eval", {"commands": pinned, "predictions": records})

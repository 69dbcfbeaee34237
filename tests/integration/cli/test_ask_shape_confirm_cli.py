"""``saga ask --answer-shape`` then ``saga index example-confirm`` on its trace, end to end (issue 25)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
from typer.testing import CliRunner

from saga_kgqa.cli import app
from saga_kgqa.config.settings import example_graph_path
from saga_kgqa.examples.model import read_examples
from tests.conftest import REPO_ROOT
from tests.integration.cli.test_ask_cli import ANSWER_TYPE, QUESTION, STOP, clean_env
from tests.support.openai_mock import MockReply, MockToolCall, serve_openai_mock

LABELLED = (
    "PREFIX ex: <http://example.org/space/> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> "
    'SELECT ?mission ?name WHERE { ?mission ex:crewMember ?a ; rdfs:label ?name . ?a ex:name "Jim Lovell" }'
)


def _missions(sparql: str) -> set[str]:
    store = ox.Store()
    store.load(path=example_graph_path(), format=ox.RdfFormat.TURTLE)
    return {solution["mission"].value for solution in store.query(sparql)}


def test_ask_returns_the_shaped_query_and_its_trace_becomes_an_example(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    execute = MockReply(tool_calls=(MockToolCall("execute", {"sparql": LABELLED}),))
    with serve_openai_mock([ANSWER_TYPE, execute, STOP]) as mock:
        command = [
            sys.executable, "-m", "saga_kgqa", "ask", QUESTION, "--json", "--answer-shape",
            "--trace", str(trace), "--checkpoint-db", str(tmp_path / "checkpoints.sqlite"),
        ]  # fmt: skip
        env = clean_env(SAGA_BASE_URL=mock.base_url, SAGA_MODEL="m")
        done = subprocess.run(command, env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "answered"
    assert "?name" not in result["final_sparql"].split("WHERE")[0]
    assert result["summary"]["unshaped_sparql"] == LABELLED and result["summary"]["dropped_columns"] == ["name"]
    assert result["answer"]["variables"] == ["mission"]
    assert (
        {row["mission"] for row in result["answer"]["rows"]} == _missions(LABELLED) == _missions(result["final_sparql"])
    )

    out = tmp_path / "space.examples.jsonl"
    confirmed = CliRunner().invoke(app, ["index", "example-confirm", str(trace), "--out", str(out)])
    assert confirmed.exit_code == 0, confirmed.output
    # stdout only: a note on stderr (a schema index reused from an earlier command) is not part of the JSON
    assert json.loads(confirmed.stdout)["appended"]["result_count"] == len(_missions(LABELLED))
    (example,) = read_examples(out)
    assert (example.question, example.sparql, example.source) == (QUESTION, result["final_sparql"], "runs")

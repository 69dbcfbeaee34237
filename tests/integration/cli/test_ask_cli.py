"""``saga ask`` end to end against a loopback server speaking the OpenAI chat-completions protocol."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app
from saga_kgqa.config.settings import example_graph_path
from saga_kgqa.runs.trajectory import read_trajectory
from tests.conftest import REPO_ROOT
from tests.support.openai_mock import MockReply, MockToolCall, serve_openai_mock

QUESTION = "Which missions did Jim Lovell fly?"
SPARQL = (
    "PREFIX ex: <http://example.org/space/> "
    'SELECT ?mission WHERE { ?mission ex:crewMember ?a . ?a ex:name "Jim Lovell" }'
)
ANSWER_TYPE = MockReply(content=json.dumps({"answer_type_label": "space mission", "answer_type_id": "ex:Mission"}))
SEARCH = MockReply(tool_calls=(MockToolCall("search", {"text": "Jim Lovell"}),))
EXECUTE = MockReply(tool_calls=(MockToolCall("execute", {"sparql": SPARQL}),))
STOP = MockReply(tool_calls=(MockToolCall("stop", {}),))


def expected_missions() -> set[str]:
    """The answer straight from pyoxigraph, independent of the agent."""
    store = ox.Store()
    store.load(path=example_graph_path(), format=ox.RdfFormat.TURTLE)
    return {solution["mission"].value for solution in store.query(SPARQL)}


def clean_env(**extra: str) -> dict[str, str]:
    """The environment minus any model settings of the developer's shell."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SAGA_", "OPENAI_"))}
    return {**env, **extra}


def _prompt_text(request: dict[str, Any]) -> str:
    return "\n".join(str(message.get("content") or "") for message in request["messages"])


def test_saga_ask_answers_through_a_chat_completions_server(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    with serve_openai_mock([ANSWER_TYPE, SEARCH, EXECUTE, STOP]) as mock:
        command = [
            sys.executable, "-m", "saga_kgqa", "ask", QUESTION, "--json",
            "--trace", str(trace), "--checkpoint-db", str(tmp_path / "checkpoints.sqlite"),
        ]  # fmt: skip
        env = clean_env(SAGA_BASE_URL=mock.base_url, SAGA_MODEL="gpt-oss-120b")
        done = subprocess.run(command, env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "answered"
    assert result["final_sparql"] == SPARQL
    assert {row["mission"] for row in result["answer"]["rows"]} == expected_missions()
    # Each answer row's supporting triples ride beside it (issue 37 point 4).
    evidence = result["evidence"]
    assert evidence["rows_supported"] == evidence["rows_checked"] == len(result["answer"]["rows"])
    for row in evidence["rows"]:
        mission = result["answer"]["rows"][row["row"]]["mission"]
        # The query's two patterns, with the row's mission and the astronaut found.
        by_predicate = {t["predicate"]["short"]: t for t in row["triples"]}
        crew, name = by_predicate["ex:crewMember"], by_predicate["ex:name"]
        assert (crew["subject"]["value"], crew["object"]["value"]) == (mission, name["subject"]["value"])
        assert (name["object"]["value"], name["subject"]["label"]) == ("Jim Lovell", "Jim Lovell")
    # The live view names each step on stderr.
    assert "step 1: search(Jim Lovell)" in done.stderr
    assert "finalize: answered" in done.stderr

    answer_type, first_step, second_step, last_step = mock.requests
    assert {r["model"] for r in mock.requests} == {"gpt-oss-120b"}
    assert (answer_type["temperature"], answer_type["max_tokens"]) == (0.0, 100)
    assert "tools" not in answer_type
    assert (first_step["temperature"], first_step["top_p"], first_step["max_tokens"]) == (1.0, 0.9, 700)
    assert {tool["function"]["name"] for tool in first_step["tools"]} == {
        "search",
        "lookup",
        "examples",
        "execute",
        "stop",
    }
    # The search's observation went back to the model before it wrote the query.
    assert "Jim Lovell" in _prompt_text(second_step)
    assert "Apollo" in _prompt_text(last_step)

    events = read_trajectory(trace)
    assert (events[0]["event"], events[-1]["event"]) == ("start", "end")
    assert events[0]["question"] == QUESTION
    nodes = [e["node"] for e in events if e["event"] == "update"]
    assert nodes == [
        "predict_answer_type",
        "controller",
        "search",
        "controller",
        "execute",
        "controller",
        "check_answer",
        "finalize",
        "evidence",
    ]
    assert events[-1]["status"] == "answered"


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    for name in list(os.environ):
        if name.startswith(("SAGA_", "OPENAI_")):
            monkeypatch.delenv(name)
    return CliRunner()


def test_failed_run_resumes_without_repeating_completed_model_calls(runner: CliRunner, tmp_path: Path) -> None:
    db = str(tmp_path / "checkpoints.sqlite")
    trace = tmp_path / "trace.jsonl"
    # A 503 is transient (retried by the node policy); a 400 is not, so the run stops there, saved.
    script = [MockReply(status=503), ANSWER_TYPE, SEARCH, MockReply(status=400)]
    with serve_openai_mock(script) as mock:
        model = ["--base-url", mock.base_url, "--model", "m1", "--checkpoint-db", db, "--trace", str(trace)]
        first = runner.invoke(app, ["ask", QUESTION, "--thread", "t1", *model])
        assert first.exit_code == 1, first.output
        assert "--resume t1" in first.stderr
        assert len(mock.requests) == 4

        refused = runner.invoke(app, ["ask", "--resume", "t1", *model[:-4], "--model", "m2", "--checkpoint-db", db])
        assert refused.exit_code == 2
        assert "ResumeMismatch" in refused.stderr and "--force" in refused.stderr

        mock.replies.extend([EXECUTE, STOP])
        resumed = runner.invoke(app, ["ask", "--resume", "t1", "--json", *model])
        assert resumed.exit_code == 0, resumed.output
    result = json.loads(resumed.stdout)
    assert result["thread_id"] == "t1" and result["question"] == QUESTION
    assert {row["mission"] for row in result["answer"]["rows"]} == expected_missions()
    # Resuming sent only the failed controller call and the ones after it.
    assert len(mock.requests) == 6
    answer_type_calls = [r for r in mock.requests if "tools" not in r]
    assert len(answer_type_calls) == 2  # the 503 and its retry, never again on resume
    events = read_trajectory(trace)
    assert [e.get("resumed") for e in events if e["event"] == "start"] == [False, True]
    assert [e.get("status") for e in events if e["event"] == "end"] == [None, "answered"]


def test_saga_ask_without_a_model_says_what_to_set(runner: CliRunner, tmp_path: Path) -> None:
    done = runner.invoke(app, ["ask", QUESTION, "--checkpoint-db", str(tmp_path / "c.sqlite")])
    assert done.exit_code == 2
    assert "ModelNotConfigured" in done.stderr
    assert "SAGA_BASE_URL" in done.stderr and "SAGA_MODEL" in done.stderr
    assert done.stdout == ""


def test_question_and_resume_are_exclusive(runner: CliRunner, tmp_path: Path) -> None:
    done = runner.invoke(app, ["ask", "--checkpoint-db", str(tmp_path / "c.sqlite")])
    assert done.exit_code == 2
    assert "--resume" in done.stderr


def test_killed_run_resumes_without_repeating_completed_steps(runner: CliRunner, tmp_path: Path) -> None:
    """faults.md E3: SIGKILL mid-run (a model call in flight), then --resume finishes the run."""
    db = str(tmp_path / "checkpoints.sqlite")
    stuck = MockReply(content="never delivered", delay_s=60)
    with serve_openai_mock([ANSWER_TYPE, SEARCH, stuck]) as mock:
        model = ["--base-url", mock.base_url, "--model", "m1", "--checkpoint-db", db]
        command = [sys.executable, "-m", "saga_kgqa", "ask", QUESTION, "--thread", "killed", *model]
        log = tmp_path / "killed.stderr"
        with log.open("wb") as sink:
            process = subprocess.Popen(command, env=clean_env(), cwd=REPO_ROOT, stderr=sink)
        deadline = time.monotonic() + 90
        while len(mock.requests) < 3 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        process.kill()
        process.wait(timeout=10)
        assert len(mock.requests) == 3, log.read_text()

        mock.replies.extend([EXECUTE, STOP])
        resumed = runner.invoke(app, ["ask", "--resume", "killed", "--json", *model])
    assert resumed.exit_code == 0, resumed.output
    result = json.loads(resumed.stdout)
    assert {row["mission"] for row in result["answer"]["rows"]} == expected_missions()
    # Only the call in flight was repeated; the answer type and the search step were not.
    assert len(mock.requests) == 5
    assert len([r for r in mock.requests if "tools" not in r]) == 1
    assert [a["sparql"] for a in result["attempts"]] == [SPARQL]


def _drop_last_checkpoint(db: Path, thread_id: str) -> None:
    """Leave ``thread_id`` as a kill between a step's saved writes and its next checkpoint leaves it."""
    with sqlite3.connect(db) as connection:
        (last,) = connection.execute(
            "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' "
            "ORDER BY checkpoint_id DESC LIMIT 1",
            (thread_id,),
        ).fetchone()
        connection.execute("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?", (thread_id, last))
        connection.execute("DELETE FROM writes WHERE thread_id = ? AND checkpoint_id = ?", (thread_id, last))


def test_run_cut_after_a_steps_writes_resumes_instead_of_reading_as_finished(runner: CliRunner, tmp_path: Path) -> None:
    """faults.md E8: the last step's writes are saved, the checkpoint after them is not (``state.next`` is empty).

    ``--resume`` finishes the run from the saved writes (no model call repeated), never "already finished"
    with the state before them.
    """
    db = tmp_path / "checkpoints.sqlite"
    with serve_openai_mock([ANSWER_TYPE, SEARCH, EXECUTE, STOP]) as mock:
        model = ["--base-url", mock.base_url, "--model", "m1", "--checkpoint-db", str(db)]
        first = runner.invoke(app, ["ask", QUESTION, "--thread", "cut", "--json", *model])
        assert first.exit_code == 0, first.output
        complete = json.loads(first.stdout)
        _drop_last_checkpoint(db, "cut")
        resumed = runner.invoke(app, ["ask", "--resume", "cut", "--json", *model])
    assert resumed.exit_code == 0, resumed.output
    assert "already finished" not in resumed.stderr
    result = json.loads(resumed.stdout)
    assert result["outcome"]["status"] == complete["outcome"]["status"] == "answered"
    assert result["answer"] == complete["answer"]
    assert len(mock.requests) == 4


def test_resume_on_a_moved_model_server_warns_and_keeps_the_step_numbers(runner: CliRunner, tmp_path: Path) -> None:
    """Issue 11: the same model on another port is the same model; resumed steps keep the run's numbering."""
    db = str(tmp_path / "checkpoints.sqlite")
    with serve_openai_mock([ANSWER_TYPE, SEARCH, MockReply(status=400)]) as first_server:
        first = runner.invoke(
            app,
            [
                "ask",
                QUESTION,
                "--thread",
                "moved",
                "--base-url",
                first_server.base_url,
                "--model",
                "m1",
                "--checkpoint-db",
                db,
            ],
        )
        assert first.exit_code == 1, first.output
        assert "step 1: search(" in first.stderr
    with serve_openai_mock([EXECUTE, STOP]) as second_server:
        assert second_server.base_url != first_server.base_url
        resumed = runner.invoke(
            app,
            [
                "ask",
                "--resume",
                "moved",
                "--json",
                "--base-url",
                second_server.base_url,
                "--model",
                "m1",
                "--checkpoint-db",
                db,
            ],
        )
    assert resumed.exit_code == 0, resumed.output
    assert "warning:" in resumed.stderr and "another server of the same model" in resumed.stderr
    assert "step 2: execute(" in resumed.stderr
    assert "step 1:" not in resumed.stderr
    assert {row["mission"] for row in json.loads(resumed.stdout)["answer"]["rows"]} == expected_missions()
    assert len(second_server.requests) == 2

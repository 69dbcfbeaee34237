"""Raw Python exceptions never escape the CLI (issue 10, holes 9 and 12).

Each case used to end in a traceback (``UnicodeEncodeError``, ``UnicodeDecodeError``,
``ValueError``, ``RecursionError``, ``OSError``, ``sqlite3.DatabaseError``,
``OverflowError``) or ran the agent on nothing. Now each is a typed error: exit status
2 (bad input or configuration) or 1 (graph failure) and one line on stderr.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from saga_kgqa.app.graphs import build_graph
from saga_kgqa.cli import app
from saga_kgqa.errors import ConfigurationError
from tests.support.fake_endpoint import FakeEndpoint, Scripted
from tests.support.openai_mock import MockReply, MockToolCall, serve_openai_mock
from tests.support.scripted_model import ScriptedChatModel, model_factory

SELECT = "SELECT ?s WHERE { ?s ?p ?o }"
ANSWER_TYPE = MockReply(content=json.dumps({"answer_type_label": "space mission", "answer_type_id": "ex:Mission"}))
STOP = MockReply(tool_calls=(MockToolCall("stop", {}),))


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    for name in list(os.environ):
        if name.startswith(("SAGA_", "OPENAI_")):
            monkeypatch.delenv(name)
    return CliRunner()


@pytest.fixture
def fake() -> Iterator[FakeEndpoint]:
    with FakeEndpoint() as endpoint:
        yield endpoint


def assert_typed(result: Result, code: int, kind: str) -> str:
    """Exit ``code``, no escaped exception, one ``error: kind: …`` line on stderr; return it."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {kind}: "), result.stderr
    return lines[0]


def test_a_lone_surrogate_in_a_query_is_rejected(runner: CliRunner) -> None:
    line = assert_typed(runner.invoke(app, ["sparql", 'SELECT ?s WHERE { ?s ?p "\ud800" }']), 2, "QueryRejected")
    assert "U+D800" in line


def test_a_latin1_byte_on_stdin_is_rejected(runner: CliRunner) -> None:
    result = runner.invoke(app, ["sparql", "-"], input=b'SELECT ?s WHERE { ?s ?p "caf\xe9" }')
    assert "UTF-8" in assert_typed(result, 2, "QueryRejected")


@pytest.mark.parametrize("timeout", ["inf", "nan", "1e300"])
def test_an_unusable_timeout_is_a_configuration_error(runner: CliRunner, timeout: str) -> None:
    result = runner.invoke(app, ["sparql", "--timeout", timeout, SELECT])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output


def test_an_unparsable_endpoint_url_is_a_configuration_error(runner: CliRunner) -> None:
    assert_typed(runner.invoke(app, ["sparql", "--endpoint", "http://[::1", SELECT]), 2, "ConfigurationError")


def test_deeply_nested_json_in_a_200_answer_is_a_bad_response(runner: CliRunner, fake: FakeEndpoint) -> None:
    deep = b'{"head": {"vars": ["s"]}, "results": {"bindings": ' + b"[" * 200_000 + b"]" * 200_000 + b"}}"
    fake.script(Scripted(body=deep))
    assert_typed(runner.invoke(app, ["sparql", "--endpoint", fake.url, SELECT]), 1, "BadResponse")


def test_an_unreadable_retry_after_is_no_crash(runner: CliRunner, fake: FakeEndpoint) -> None:
    fake.script(Scripted(status=429, headers={"Retry-After": "²"}, content_type="text/plain"))
    assert_typed(runner.invoke(app, ["sparql", "--endpoint", fake.url, SELECT]), 1, "EndpointThrottled")


def test_an_unwritable_record_cache_is_a_configuration_error(
    runner: CliRunner, fake: FakeEndpoint, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory should be", encoding="utf-8")
    fake.script(Scripted(body=b'{"head": {"vars": ["s"]}, "results": {"bindings": []}}'))
    args = ["sparql", "--endpoint", fake.url, "--cache-dir", str(blocker / "cache"), "--cache-mode", "record", SELECT]
    assert "cache" in assert_typed(runner.invoke(app, args), 2, "ConfigurationError")


def test_a_corrupt_checkpoint_database_is_a_configuration_error(runner: CliRunner, tmp_path: Path) -> None:
    db = tmp_path / "checkpoints.sqlite"
    db.write_bytes(b"this is not a database" * 200)
    with serve_openai_mock([ANSWER_TYPE, STOP]) as mock:
        model = ["--base-url", mock.base_url, "--model", "m", "--checkpoint-db", str(db), "--quiet"]
        line = assert_typed(runner.invoke(app, ["ask", "Which moons orbit Jupiter?", *model]), 2, "ConfigurationError")
        assert str(db) in line
        assert_typed(runner.invoke(app, ["ask", "--resume", "abc", *model]), 2, "ConfigurationError")
        assert mock.requests == []


@pytest.mark.parametrize("question", ["", "   ", "\n\t "])
def test_an_empty_question_is_refused_before_the_agent_runs(runner: CliRunner, tmp_path: Path, question: str) -> None:
    with serve_openai_mock([ANSWER_TYPE, STOP]) as mock:
        model = ["--base-url", mock.base_url, "--model", "m", "--checkpoint-db", str(tmp_path / "c.sqlite")]
        line = assert_typed(runner.invoke(app, ["ask", question, *model, "--quiet"]), 2, "ConfigurationError")
        assert "question" in line
        assert mock.requests == []


@pytest.mark.parametrize("question", ["", "  \n "])
def test_the_graph_refuses_an_empty_question_without_a_model_call(question: str) -> None:
    model = ScriptedChatModel([])
    graph = build_graph(model_factory=model_factory(model))
    with pytest.raises(ConfigurationError, match="question"):
        graph.invoke({"question": question})
    assert model.calls == 0


def test_a_lone_surrogate_from_the_model_becomes_an_observation_and_the_run_goes_on(
    runner: CliRunner, tmp_path: Path
) -> None:
    surrogate = MockReply(tool_calls=(MockToolCall("execute", {"sparql": 'SELECT ?s WHERE { ?s ?p "\ud800" }'}),))
    db = str(tmp_path / "c.sqlite")
    # The query matches nothing, so the answer checks answer the first stop; the second is accepted.
    with serve_openai_mock([ANSWER_TYPE, surrogate, STOP, STOP]) as mock:
        model = ["--base-url", mock.base_url, "--model", "m", "--checkpoint-db", db, "--quiet", "--json"]
        result = runner.invoke(app, ["ask", "Which moons orbit Jupiter?", "--thread", "s1", *model])
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
        assert result.exit_code in (0, 3), result.output  # the run finished, the thread is not dead
        assert len(mock.requests) == 4
        # Every request the provider got was valid UTF-8 JSON (the surrogate would make it unsendable).
        for request in mock.requests:
            json.dumps(request, ensure_ascii=False).encode("utf-8")
        attempts = json.loads(result.stdout)["attempts"]
        assert attempts and "\ufffd" in attempts[0]["sparql"]  # what the model wrote, made encodable

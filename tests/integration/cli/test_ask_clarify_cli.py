"""``saga ask`` asks back (issue 37 point 5): an ambiguous name ends ``needs_clarification`` with the candidates
under ``--json`` (no terminal), and ``--resume THREAD --choice N`` answers it: the controller is told the choice and
the final query uses that candidate; a choice that is not a candidate is refused and the question stands."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from saga_kgqa.cli import app
from tests.support.ambiguous import LEEDS, PAINTER, QUESTION, born_in, write_ambiguous
from tests.support.openai_mock import MockReply, MockToolCall, serve_openai_mock

ANSWER_TYPE = MockReply(content=json.dumps({"answer_type_label": "city", "answer_type_id": "ex:City"}))
SEARCH = MockReply(tool_calls=(MockToolCall("search", {"text": "John Smith"}),))
STOP = MockReply(tool_calls=(MockToolCall("stop", {}),))


@pytest.fixture(autouse=True)
def _no_shell_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("SAGA_", "OPENAI_")):
            monkeypatch.delenv(name)


def _ask(tmp_path: Path, graph: Path, replies: list[MockReply], *options: str) -> tuple[Result, list[dict[str, Any]]]:
    with serve_openai_mock(replies) as mock:
        arguments = [
            "ask", *options, "--json", "--quiet", "--data", str(graph),
            "--checkpoint-db", str(tmp_path / "checkpoints.sqlite"),
        ]  # fmt: skip
        env = {"SAGA_BASE_URL": mock.base_url, "SAGA_MODEL": "gpt-oss-120b"}
        return CliRunner().invoke(app, arguments, env=env), list(mock.requests)


def test_an_ambiguous_name_asks_and_the_second_candidate_becomes_the_final_query(tmp_path: Path) -> None:
    graph = write_ambiguous(tmp_path)
    asked, _ = _ask(tmp_path, graph, [ANSWER_TYPE, SEARCH], QUESTION)
    assert asked.exit_code == 8, asked.output  # needs_clarification's documented exit status
    waiting = json.loads(asked.stdout)
    assert waiting["status"] == "needs_clarification" and waiting["final_sparql"] is None
    question = waiting["clarification"]
    assert question["mention"] == "John Smith" and len(question["candidates"]) == 2
    assert {c["fact"] for c in question["candidates"]} == {"astronaut, born 1930", "painter, born 1952"}
    second = question["candidates"][1]

    # A choice that is no candidate is refused: the run still waits, and says why.
    refused, _ = _ask(tmp_path, graph, [], "--resume", waiting["thread_id"], "--choice", "ex:nobody")
    assert refused.exit_code == 8, refused.output
    assert "not one of the candidates" in json.loads(refused.stdout)["clarification"]["refused"]

    execute = MockReply(tool_calls=(MockToolCall("execute", {"sparql": born_in(second["iri"])}),))
    done, requests = _ask(tmp_path, graph, [execute, STOP], "--resume", waiting["thread_id"], "--choice", "2")
    assert done.exit_code == 0, done.output
    answered = json.loads(done.stdout)
    assert answered["status"] == "answered" and answered["clarification"] is None
    assert second["iri"] in answered["final_sparql"]
    # The controller was told which one the user chose before it wrote that query.
    shown = json.dumps(requests[0]["messages"])
    assert f"the user chose John Smith {second['id']}" in shown and f"Use {second['id']} for" in shown
    rows = {row["city"] for row in answered["answer"]["rows"]}
    assert rows == ({LEEDS} if "painter" in second["iri"] else {"http://example.org/amb/houston"})


def test_clarify_never_answers_without_asking(tmp_path: Path) -> None:
    graph = write_ambiguous(tmp_path)
    execute = MockReply(
        tool_calls=(MockToolCall("execute", {"sparql": born_in("http://example.org/amb/smith_painter")}),)
    )
    done, _ = _ask(tmp_path, graph, [ANSWER_TYPE, SEARCH, execute, STOP], QUESTION, "--clarify", "never")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["status"] == "answered"


def test_a_person_at_a_terminal_is_asked_and_the_run_goes_on_with_the_choice(tmp_path: Path) -> None:
    from saga_kgqa.app.run import open_run
    from saga_kgqa.cli.ask.run import AskRequest, follow_run
    from saga_kgqa.config.model_settings import ModelSettings
    from saga_kgqa.graph.clarify import Clarification

    graph = write_ambiguous(tmp_path)
    asked: list[Clarification] = []

    def person(question: Clarification) -> str:  # the terminal's reader, as terminal_chooser is
        asked.append(question)
        painter = next(n for n, c in enumerate(question.candidates, 1) if "painter" in c.fact)
        return str(painter)

    execute = MockReply(tool_calls=(MockToolCall("execute", {"sparql": born_in(PAINTER)}),))
    with serve_openai_mock([ANSWER_TYPE, SEARCH, execute, STOP]) as mock:
        request = AskRequest(
            question=QUESTION,
            resume=None,
            data=[graph],
            model=ModelSettings(model="gpt-oss-120b", base_url=mock.base_url),
            checkpoint_db=tmp_path / "checkpoints.sqlite",
            live=False,
            chooser=person,
        )
        with open_run(request) as run:
            result = follow_run(run, request)
        prompts = json.dumps(list(mock.requests)[2]["messages"])
    (question,) = asked
    assert question.mention == "John Smith" and len(question.candidates) == 2
    assert result.values["status"] == "answered" and "clarification" not in result.values
    assert "Use ex:smith_painter for 'John Smith'" in prompts
    assert {row["city"] for row in result.values["answer"].rows} == {LEEDS}

"""Whole-graph trajectories on a Spider4SPARQL graph (singer, with its OWL ontology), driven by a scripted model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.state import PriorTurn
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.agent import open_toolbox, run_agent
from tests.support.scripted_model import answer_type, text_action, tool_call

pytestmark = pytest.mark.shared_data

SINGER = "http://valuenet/ontop/singer"
REF_SINGER = "<http://valuenet/ontop/song#ref-singer_id>"
TITLE = "<http://valuenet/ontop/song#title>"
CITIZENSHIP = "<http://valuenet/ontop/singer#citizenship>"
NAME = "<http://valuenet/ontop/singer#name>"


@pytest.fixture(scope="module")
def singer(data_dir: Path) -> Iterator[SagaToolbox]:
    spider = data_dir / "spider4sparql"
    toolbox = open_toolbox([spider / "kg" / "singer_triples.ttl", spider / "ontology" / "mpboot_spider_singer.owl"])
    yield toolbox
    toolbox.graph.close()


def test_a_type_learnt_from_a_result_is_used_in_a_later_step(singer: SagaToolbox) -> None:
    singers = f"SELECT ?s WHERE {{ ?song {REF_SINGER} ?s }}"
    wrong = f"SELECT ?t WHERE {{ ?s {TITLE} ?t }}"
    right = f"SELECT ?n WHERE {{ ?song {REF_SINGER} ?s . ?s {NAME} ?n }}"
    run = run_agent(
        singer,
        [
            answer_type("person"),
            tool_call("execute", sparql=singers),
            tool_call("execute", sparql=wrong),
            tool_call("execute", sparql=right),
            tool_call("stop"),
        ],
        question="What are the names of the singers who have a song?",
    )
    after_first = run.model.prompt_text(2)
    assert f"- ?s: <{SINGER}>" in after_first  # Θ shown to the controller
    assert "[info] step 1: 3 types found for ?s" in after_first and f"has type <{SINGER}>)" in after_first
    # Θ from step 1 blocks step 2: ?s is a singer, and song#title wants a song.
    blocked = run.state["history"][1]
    assert blocked.outcome == "blocked"
    assert f"?s has type <{SINGER}> (from earlier steps)" in blocked.observation
    assert [a.status for a in run.output["attempts"]] == ["ok", "blocked", "ok"]
    assert run.output["status"] == "answered" and run.output["answer"].row_count == 8


def test_without_persistent_type_state_the_same_query_is_not_blocked(singer: SagaToolbox) -> None:
    singers = f"SELECT ?s WHERE {{ ?song {REF_SINGER} ?s }}"
    titles = f"SELECT ?t WHERE {{ ?s {TITLE} ?t }}"
    run = run_agent(
        singer,
        [tool_call("execute", sparql=singers), tool_call("execute", sparql=titles), tool_call("stop")],
        question="What are the song titles?",
        persistent_type_state=False,
        answer_type_prior=False,
        # The final query shares nothing with step 1: the consistency check would rightly ask for a second stop.
        check_consistency=False,
    )
    assert [a.status for a in run.output["attempts"]] == ["ok", "ok"]
    assert "Known entity types" not in run.model.all_prompts()
    assert "Expected answer type" not in run.model.all_prompts()
    assert "(no type context in this run)" in run.model.prompt_text(0)
    assert not run.state.get("theta") or len(run.state["theta"]) == 0


def test_an_ask_question_is_answered_with_a_boolean(singer: SagaToolbox) -> None:
    ask = f'ASK {{ ?s {CITIZENSHIP} "Chile" }}'
    run = run_agent(
        singer,
        [
            answer_type("boolean"),
            tool_call("search", text="citizenship"),
            tool_call("execute", sparql=ask),
            tool_call("stop"),
        ],
        question="Is there a singer from Chile?",
    )
    assert "Expected answer type: boolean (a yes/no question: finish with an ASK query)" in run.model.prompt_text(1)
    assert run.state["answer_type"].kind == "boolean"
    assert "[ok] step 2: execute: ASK answered true" in run.model.prompt_text(3)
    output = run.output
    assert output["status"] == "answered"
    assert output["answer"].boolean is True and output["final_sparql"] == ask


def test_text_action_mode_parses_each_step_with_a_second_call(singer: SagaToolbox) -> None:
    query = f'SELECT ?n WHERE {{ ?s {CITIZENSHIP} "Germany" ; {NAME} ?n }}'
    run = run_agent(
        singer,
        [
            answer_type("person"),
            *text_action("execute", query, thought="Find German singers."),
            *text_action("stop", ""),
        ],
        question="Which singers are German?",
        tool_calling="text",
    )
    assert run.model.bound_tools == []  # no native tools in text mode
    assert 'Output one "Thought" and one "Action":' in run.model.prompt_text(1)
    assert "Extract the action as a JSON object" in run.model.prompt_text(2)
    assert "Action: execute(SELECT ?n" in run.model.prompt_text(2)
    assert run.state["history"][0].thought == "Find German singers."
    assert run.output["answer"].row_count == 1 and run.output["summary"].llm_calls == 5


def test_prior_conversation_is_prepended(singer: SagaToolbox) -> None:
    run = run_agent(
        singer,
        [answer_type("person"), tool_call("stop")],
        question="And which of them is the oldest?",
        conversation=[PriorTurn(question="Which singers are German?", sparql="SELECT ?s WHERE { }", answer="1 row")],
    )
    controller = run.model.prompt_text(1)
    assert controller.index("User Question: Which singers are German?") < controller.index(
        "User Question: And which of them is the oldest?"
    )
    assert "Final SPARQL: SELECT ?s WHERE { }\nAnswer: 1 row\n--" in controller

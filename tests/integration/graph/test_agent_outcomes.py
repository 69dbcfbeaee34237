"""One outcome per run, decided in finalize (issue 37): the final query is the last one executed.

Scripted runs on the project's mini graph: a non-empty query then an empty one ends ``empty``
with the empty one as the final query and no earlier row in the answer; each other ending has
its own outcome; old checkpoints (statuses of before) still read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.runs.batch import config_path
from saga_kgqa.state.outcome import RunOutcome, outcome_of
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.agent import open_toolbox, run_agent
from tests.support.grounding import MINI_TTL
from tests.support.scripted_model import answer_type, tool_call

ALICE_DEPT = "SELECT ?d WHERE { <http://example.org/mini/res/alice> <http://example.org/mini/vocab#memberOf> ?d }"
NOBODY_DEPT = "SELECT ?d WHERE { <http://example.org/mini/res/nobody> <http://example.org/mini/vocab#memberOf> ?d }"
RESEARCH = "http://example.org/mini/res/research"


@pytest.fixture(scope="module")
def mini() -> Iterator[SagaToolbox]:
    toolbox = open_toolbox([MINI_TTL])
    yield toolbox
    toolbox.graph.close()


def _outcome(output: dict[str, object]) -> RunOutcome:
    found = output.get("outcome")
    assert isinstance(found, RunOutcome)
    assert output["status"] == found.status  # one status, the same in both fields
    return found


def test_an_empty_last_query_is_the_answer_not_the_earlier_table(mini: SagaToolbox) -> None:
    run = run_agent(
        mini,
        [
            answer_type("department"),
            tool_call("execute", sparql=ALICE_DEPT),
            tool_call("execute", sparql=NOBODY_DEPT),
            tool_call("stop"),
            tool_call("stop"),  # the answer checks may send the first stop back
        ],
        question="In which department is Mr. Nobody Here?",
    )
    outcome = _outcome(run.output)
    assert outcome.status == "empty" and outcome.rows.total == 0
    assert run.output["final_sparql"] == NOBODY_DEPT
    answer = run.output["answer"]
    assert answer is not None and answer.rows == () and RESEARCH not in answer.text
    assert outcome.earlier is not None and outcome.earlier.sparql == ALICE_DEPT and outcome.earlier.row_count == 1
    # The empty result says why (the probes of tools/execute name the dead pattern).
    assert outcome.diagnosis is not None and "matches nothing" in outcome.diagnosis


def test_the_benchmark_policy_takes_the_last_query_with_rows_only_when_asked(mini: SagaToolbox) -> None:
    run = run_agent(
        mini,
        [
            answer_type("department"),
            tool_call("execute", sparql=ALICE_DEPT),
            tool_call("execute", sparql=NOBODY_DEPT),
            tool_call("stop"),
            tool_call("stop"),
        ],
        question="In which department is Mr. Nobody Here?",
        final_query="last_answering",
    )
    assert _outcome(run.output).status == "answered"
    assert run.output["final_sparql"] == ALICE_DEPT


def test_a_query_the_guard_refused_last_ends_refused_not_with_the_earlier_rows(mini: SagaToolbox) -> None:
    run = run_agent(
        mini,
        [
            answer_type("department"),
            tool_call("execute", sparql=ALICE_DEPT),
            tool_call("execute", sparql="DROP ALL"),
            tool_call("stop"),
        ],
        question="Which department?",
    )
    outcome = _outcome(run.output)
    assert outcome.status == "refused" and outcome.reason == "guard"
    assert run.output["answer"] is None or run.output["answer"].rows == ()
    assert outcome.earlier is not None and outcome.earlier.sparql == ALICE_DEPT


def test_a_stop_without_any_query_is_refused_and_a_spent_budget_without_one_failed(mini: SagaToolbox) -> None:
    stopped = run_agent(mini, [answer_type("thing"), tool_call("stop")], question="What?")
    assert (_outcome(stopped.output).status, _outcome(stopped.output).reason) == ("refused", "no_query")
    spent = run_agent(
        mini,
        [answer_type("thing"), tool_call("search", text="Alice"), tool_call("search", text="Bob")],
        question="What?",
        max_steps=2,
    )
    assert (_outcome(spent.output).status, _outcome(spent.output).reason) == ("failed", "step_budget")


def test_rows_then_a_spent_budget_is_partial_and_a_row_cap_cut_is_partial(mini: SagaToolbox) -> None:
    every = "SELECT ?s WHERE { ?s ?p ?o }"
    spent = run_agent(
        mini,
        [answer_type("thing"), tool_call("execute", sparql=ALICE_DEPT), tool_call("search", text="Bob")],
        question="Which department?",
        max_steps=2,
    )
    outcome = _outcome(spent.output)
    assert (outcome.status, outcome.reason, outcome.rows.total) == ("partial", "step_budget", 1)
    cut = run_agent(
        mini,
        [answer_type("thing"), tool_call("execute", sparql=every), tool_call("stop"), tool_call("stop")],
        question="Everything?",
        answer_rows=3,
    )
    outcome = _outcome(cut.output)
    assert (outcome.status, outcome.reason) == ("partial", "row_cap")
    assert outcome.rows.total == 3 and outcome.rows.truncated


def test_an_answered_run_carries_its_counts(mini: SagaToolbox) -> None:
    run = run_agent(
        mini,
        [answer_type("department"), tool_call("execute", sparql=ALICE_DEPT), tool_call("stop"), tool_call("stop")],
        question="In which department is Alice?",
    )
    outcome = _outcome(run.output)
    assert (outcome.status, outcome.rows.total, outcome.rows.truncated) == ("answered", 1, False)
    assert outcome.earlier is None


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"status": "budget_exhausted", "answer": {"row_count": 2}}, "partial"),
        ({"status": "budget_exhausted", "answer": None}, "failed"),
        ({"status": "gave_up"}, "refused"),
        ({"status": "answered"}, "answered"),
        ({}, "failed"),
    ],
)
def test_outcomes_of_old_checkpoints_still_read(values: dict[str, object], expected: str) -> None:
    assert outcome_of(values).status == expected


def test_eval_predictions_carry_the_outcome_and_the_last_query(mini: SagaToolbox) -> None:
    from saga_kgqa.app.graphs import build_graph
    from saga_kgqa.benchmarks.questions import BenchmarkQuestion
    from saga_kgqa.config.context import SagaContext
    from saga_kgqa.runs.agent_answerer import AgentAnswerer
    from saga_kgqa.runs.predictions import outcome_counts
    from tests.support.scripted_model import ScriptedChatModel

    script = [
        answer_type("department"),
        tool_call("execute", sparql=ALICE_DEPT),
        tool_call("execute", sparql=NOBODY_DEPT),
        tool_call("stop"),
        tool_call("stop"),
    ]
    question = BenchmarkQuestion(id="mini:1", benchmark="mini", question="In which department is Mr. Nobody Here?")
    records = {}
    for policy in ("last_executed", "last_answering"):
        model = ScriptedChatModel(list(script))
        graph = build_graph(model_factory=lambda _c, _r, m=model: m, toolbox_factory=lambda _c: mini)
        answerer = AgentAnswerer(graph, SagaContext(final_query=policy), mini.graph)  # type: ignore[arg-type]
        records[policy] = answerer(question)
    default = records["last_executed"]
    assert default.outcome == "empty" and default.predicted_sparql == NOBODY_DEPT
    assert default.predicted_answers is not None and default.predicted_answers["results"]["bindings"] == []
    assert records["last_answering"].outcome == "answered"
    assert records["last_answering"].predicted_sparql == ALICE_DEPT
    assert outcome_counts(list(records.values())) == {"answered": 1, "empty": 1}


def test_the_outcome_of_an_empty_run_says_the_key_differs_only_in_format(mini: SagaToolbox) -> None:
    shouted = 'SELECT ?x WHERE { ?x <http://example.org/mini/vocab#email> "ALICE@EXAMPLE.ORG" }'
    run = run_agent(
        mini,
        [answer_type("person"), tool_call("execute", sparql=shouted), tool_call("stop"), tool_call("stop")],
        question="Whose e-mail is ALICE@EXAMPLE.ORG?",
    )
    outcome = _outcome(run.output)
    assert outcome.status == "empty"
    assert outcome.diagnosis is not None and '"alice@example.org"' in outcome.diagnosis
    assert "only in case" in outcome.diagnosis


@pytest.mark.shared_data
@pytest.mark.parametrize("policy", [None, "last_answering"])
def test_saga_eval_run_records_the_final_query_policy_and_counts_outcomes(
    data_dir: Path, tmp_path: Path, policy: str | None
) -> None:
    from tests.conftest import REPO_ROOT
    from tests.support.outcome_faces import NOBODY, SUPPLIERS

    script = tmp_path / "script.json"
    steps = [{"tool": "execute", "args": {"sparql": q}} for q in (SUPPLIERS, NOBODY)]
    script.write_text(json.dumps([answer_type("supplier"), *steps, {"tool": "stop"}, {"tool": "stop"}]))
    out = tmp_path / "run.jsonl"
    command = [sys.executable, "-m", "saga_kgqa", "eval", "run", "ck25", "--limit", "1", "--out", str(out)]
    command += ["--data", str(data_dir / "text2sparql_ck25" / "prod-inst.ttl"), "--data-dir", str(data_dir)]
    command += ["--final-query", policy] if policy else []
    env = {
        **os.environ,
        "SAGA_MODEL_FACTORY": "tests.support.studio_models:scripted_factory",
        "SAGA_TEST_SCRIPT": str(script),
        "PYTHONPATH": str(REPO_ROOT),
    }
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    expected = "answered" if policy else "empty"
    assert json.loads(done.stdout)["outcomes"] == {expected: 1}
    saved = json.loads(config_path(out).read_text(encoding="utf-8"))
    assert saved["context"]["final_query"] == (policy or "last_executed")
    (record,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert record["outcome"] == expected and record["predicted_sparql"] == (SUPPLIERS if policy else NOBODY)


@pytest.mark.shared_data
def test_an_eval_run_that_asks_back_is_predicted_needs_clarification(data_dir: Path) -> None:
    from saga_kgqa.app.graphs import build_graph
    from saga_kgqa.benchmarks.questions import BenchmarkQuestion
    from saga_kgqa.config.context import SagaContext
    from saga_kgqa.runs.agent_answerer import AgentAnswerer
    from tests.support.outcome_faces import ambiguous_name
    from tests.support.scripted_model import ScriptedChatModel

    data = data_dir / "text2sparql_ck25" / "prod-inst.ttl"
    name, first = ambiguous_name(data)
    country = f"SELECT ?c WHERE {{ <{first}> <http://ld.company.org/prod-vocab/addressCountry> ?c }}"
    script = [answer_type("country"), tool_call("search", text=name), tool_call("execute", sparql=country)]
    toolbox = open_toolbox([data])
    try:
        model = ScriptedChatModel([*script, tool_call("stop"), tool_call("stop")])
        graph = build_graph(model_factory=lambda _c, _r: model, toolbox_factory=lambda _c: toolbox)
        question = BenchmarkQuestion(id="ck25:x", benchmark="ck25", question=f"In which country is {name}?")
        record = AgentAnswerer(graph, SagaContext(), toolbox.graph)(question)
    finally:
        toolbox.graph.close()
    assert record.outcome == "needs_clarification" and record.predicted_sparql is None

"""`run_benchmark` with the real agent graph and a scripted model that replays each gold query.

For every CK25 question the scripted model predicts an answer type, executes the gold
query and stops; the agent's finalize step picks that query and the answerer runs it for
typed answers. Against the gold store this scores EM 1 on every usable question. A variant
whose every fifth question executes a query with no answer instead scores exactly the
share of usable questions it leaves untouched.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from saga_kgqa.app.graphs import build_graph
from saga_kgqa.benchmarks.loaders import load_benchmark
from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.config.context import SagaContext
from saga_kgqa.eval.qa.gold import GoldStore, build_gold_store
from saga_kgqa.eval.qa.scorer import score_question, summarise
from saga_kgqa.runs.agent_answerer import AgentAnswerer
from saga_kgqa.runs.batch import RunSummary, run_benchmark
from saga_kgqa.runs.predictions import PredictionStatus, summarise_traces
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.agent import open_toolbox
from tests.support.scripted_model import ScriptedChatModel, answer_type, tool_call

pytestmark = pytest.mark.shared_data

# Runs and returns nothing (a pattern no triple matches would be blocked before it ran, never empty).
NO_ANSWER = 'SELECT ?x WHERE { ?x a <http://ld.company.org/prod-vocab/Department> FILTER(STR(?x) = "none") }'
Ck25 = tuple[SagaToolbox, list[BenchmarkQuestion], GoldStore]


@pytest.fixture(scope="module")
def ck25(data_dir: Path) -> Iterator[Ck25]:
    toolbox = open_toolbox([data_dir / "text2sparql_ck25" / "prod-inst.ttl"])
    questions = list(load_benchmark("ck25", data_dir).questions)
    yield toolbox, questions, build_gold_store(questions, toolbox.graph)
    toolbox.graph.close()


def _run(ck25: Ck25, out: Path, corrupt_every: int | None) -> tuple[RunSummary, ScriptedChatModel]:
    toolbox, questions, _ = ck25
    script: list[Any] = []
    for number, question in enumerate(questions, start=1):
        corrupt = corrupt_every is not None and number % corrupt_every == 0
        sparql = NO_ANSWER if corrupt else question.gold_sparql
        script += [answer_type("thing"), tool_call("execute", sparql=sparql), tool_call("stop")]
    model = ScriptedChatModel(script)
    graph = build_graph(model_factory=lambda _context, _role: model, toolbox_factory=lambda _context: toolbox)
    # One scripted stop per question: the answer checks (which may ask for a second stop) are off here.
    context = SagaContext(
        max_steps=5,
        check_answer_type=False,
        check_question_form=False,
        check_know_before_use=False,
        check_consistency=False,
    )
    answerer = AgentAnswerer(graph, context, toolbox.graph)
    config = {"answerer": "agent-gold-replay", "corrupt_every": corrupt_every}
    return run_benchmark(questions, answerer, out, config=config), model


def _summary(run: RunSummary, gold: GoldStore) -> dict[str, Any]:
    scores, not_scored = [], []
    for question_id, record in run.records.items():
        entry = gold.get(question_id)
        assert entry is not None
        if entry.usable:
            scores.append(score_question(record.predicted_result(), entry.result()))
        else:
            not_scored.append(entry.status.value)
    return summarise(scores, not_scored)


def test_replaying_gold_through_the_agent_scores_em_one(ck25: Ck25, tmp_path: Path) -> None:
    _, questions, gold = ck25
    run, model = _run(ck25, tmp_path / "agent.jsonl", None)
    summary = _summary(run, gold)
    assert summary["scored"] == 44 and summary["not_scored"] == {"drift": 6}
    for metric in ("paper_em", "strict_em", "strict_em_canonical", "spinach_row_em", "grasp_f1", "gerbil_f1"):
        assert summary["means"][metric] == 1.0, metric
    first = run.records[questions[0].id]
    assert first.status is PredictionStatus.ANSWERED
    assert first.predicted_sparql == (questions[0].gold_sparql or "").strip()
    traces = summarise_traces([r.trace for r in run.records.values()])
    assert traces["actions_per_tool"] == {"execute": 50}
    assert traces["totals"]["llm_calls"] == model.calls == 150


def test_corrupting_every_fifth_agent_answer_scores_the_expected_figure(ck25: Ck25, tmp_path: Path) -> None:
    _, questions, gold = ck25
    run, _ = _run(ck25, tmp_path / "corrupt.jsonl", 5)
    corrupted = {q.id for n, q in enumerate(questions, start=1) if n % 5 == 0}
    usable = {r.question_id for r in gold if r.usable}
    expected = 1 - len(corrupted & usable) / len(usable)
    summary = _summary(run, gold)
    assert expected < 1
    assert summary["means"]["strict_em"] == pytest.approx(expected)
    assert summary["means"]["spinach_row_f1"] == pytest.approx(expected)
    assert summary["empty_result_rate"] == pytest.approx(len(corrupted & usable) / len(usable))
    # Every corrupted question ran one empty query; replayed gold queries ran empty only where the gold is empty.
    empty_gold = {
        r.question_id for r in gold if r.answers is not None and not r.result().rows and r.result().form != "ASK"
    }
    traces = summarise_traces([r.trace for r in run.records.values()])
    assert traces["totals"]["queries_empty"] == len(corrupted) + len(empty_gold - corrupted)


class TickingClock:
    """Advances one second per reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def _endless(sparql: str, steps: int, usage: dict[str, int] | None = None) -> list[Any]:
    from langchain_core.messages import AIMessage

    script: list[Any] = [answer_type("thing")]
    for _ in range(steps):
        call = tool_call("execute", sparql=sparql)
        script.append(AIMessage("", tool_calls=call.tool_calls, usage_metadata=usage) if usage else call)
    return script


@pytest.mark.parametrize("budget", ["seconds", "tokens"])
def test_seconds_and_token_budgets_stop_the_agent_between_steps(ck25: Ck25, budget: str) -> None:
    toolbox, questions, gold = ck25
    question = questions[0]
    assert question.gold_sparql is not None
    usage = {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}
    model = ScriptedChatModel(_endless(question.gold_sparql, 40, usage if budget == "tokens" else None))
    graph = build_graph(model_factory=lambda _context, _role: model, toolbox_factory=lambda _context: toolbox)
    limits: dict[str, Any] = {"max_seconds": 6.5} if budget == "seconds" else {"max_tokens": 500}
    answerer = AgentAnswerer(graph, SagaContext(max_steps=40), toolbox.graph, clock=TickingClock(), **limits)
    record = answerer(question)
    expected = PredictionStatus.TIMEOUT if budget == "seconds" else PredictionStatus.BUDGET_EXHAUSTED
    assert record.status is expected
    # Stopped well before the 40-step budget, with the query the agent had run as its answer.
    assert 1 <= record.trace.queries_executed < 10 and model.calls < 12
    entry = gold.get(question.id)
    assert entry is not None
    assert score_question(record.predicted_result(), entry.result()).strict_em == 1.0
    if budget == "tokens":
        assert record.trace.prompt_tokens + record.trace.completion_tokens > 500


def test_the_mars_graph_runs_through_the_same_answerer_and_scores_em_one(ck25: Ck25, tmp_path: Path) -> None:
    from saga_kgqa.mars.builder import build_mars_graph

    toolbox, questions, gold = ck25
    first = questions[:6]
    script: list[Any] = []
    for question in first:
        script += ['{"entities": []}', f"SPARQL:\n```sparql\n{question.gold_sparql}\n```", "CORRECT"]
    model = ScriptedChatModel(script)
    graph = build_mars_graph(model_factory=lambda _context, _role: model, toolbox_factory=lambda _context: toolbox)
    answerer = AgentAnswerer(graph, SagaContext(max_steps=5, pattern_ranking="degree"), toolbox.graph)  # type: ignore[arg-type]
    run = run_benchmark(first, answerer, tmp_path / "mars.jsonl", config={"method": "mars"})
    summary = _summary(run, gold)
    assert summary["scored"] >= 1 and summary["means"]["strict_em"] == 1.0
    assert model.calls == 3 * len(first)
    assert all(record.trace.llm_calls == 3 for record in run.records.values())

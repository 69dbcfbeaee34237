"""CK25 end to end without a model: replay each gold query, score, corrupt, kill and resume.

The scripted :class:`GoldReplayAnswerer` stands in for the agent (the agent graph lives on
another branch): replaying the gold query scores EM 1 on every question with usable gold;
emptying every fifth answer lowers the scores by exactly the usable questions it hits.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pyparsing import ParserElement

from saga_kgqa.benchmarks.loaders import load_benchmark
from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.eval.qa.gold import GoldStore, build_gold_store
from saga_kgqa.eval.qa.scorer import score_question, summarise
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.runs.batch import GoldReplayAnswerer, RunSummary, run_benchmark
from saga_kgqa.runs.predictions import PredictionRecord

pytestmark = pytest.mark.shared_data

CONFIG = {"answerer": "gold-replay", "benchmark": "ck25"}
Ck25 = tuple[KnowledgeGraph, list[BenchmarkQuestion], GoldStore]


@pytest.fixture(scope="module")
def ck25(data_dir: Path) -> Iterator[Ck25]:
    graph = KnowledgeGraph(open_backend(data=[data_dir / "text2sparql_ck25" / "prod-inst.ttl"]))
    questions = list(load_benchmark("ck25", data_dir).questions)
    yield graph, questions, build_gold_store(questions, graph)
    graph.close()


def _summary(run: RunSummary, gold: GoldStore) -> dict[str, object]:
    scores, not_scored = [], []
    for question_id, record in run.records.items():
        entry = gold.get(question_id)
        assert entry is not None
        if entry.usable:
            scores.append(score_question(record.predicted_result(), entry.result()))
        else:
            not_scored.append(entry.status.value)
    return summarise(scores, not_scored)


def test_gold_replay_scores_em_one_on_every_usable_question(ck25: Ck25, tmp_path: Path) -> None:
    graph, questions, gold = ck25
    run = run_benchmark(questions, GoldReplayAnswerer(graph), tmp_path / "replay.jsonl", config=CONFIG)
    summary = _summary(run, gold)
    usable = sum(record.usable for record in gold)
    assert summary["scored"] == usable == 44
    means = summary["means"]
    assert isinstance(means, dict)
    for metric in ("paper_em", "strict_em", "strict_em_canonical", "spinach_row_em", "grasp_f1", "gerbil_f1"):
        assert means[metric] == 1.0, metric


def test_corrupting_every_fifth_answer_scores_the_expected_lower_figure(ck25: Ck25, tmp_path: Path) -> None:
    graph, questions, gold = ck25
    run = run_benchmark(
        questions, GoldReplayAnswerer(graph, corrupt_every=5), tmp_path / "corrupt.jsonl", config=CONFIG
    )
    corrupted = {q.id for n, q in enumerate(questions, start=1) if n % 5 == 0}
    usable = {record.question_id for record in gold if record.usable}
    expected = 1 - len(corrupted & usable) / len(usable)
    means = _summary(run, gold)["means"]
    assert isinstance(means, dict)
    assert means["strict_em"] == pytest.approx(expected) and means["spinach_row_f1"] == pytest.approx(expected)
    assert expected < 1


class Killed(BaseException):
    """Stands for the process being killed (not an Exception, so the runner does not record it)."""


def test_a_killed_run_resumes_without_redoing_finished_questions(ck25: Ck25, tmp_path: Path) -> None:
    graph, questions, _ = ck25
    replay = GoldReplayAnswerer(graph)
    calls: list[str] = []

    def dies_after_twenty(question: BenchmarkQuestion) -> PredictionRecord:
        if len(calls) == 20:
            raise Killed
        calls.append(question.id)
        return replay(question)

    out = tmp_path / "killed.jsonl"
    with pytest.raises(Killed):
        run_benchmark(questions, dies_after_twenty, out, config=CONFIG)
    assert len(out.read_text(encoding="utf-8").splitlines()) == 20
    resumed: list[str] = []

    def counting(question: BenchmarkQuestion) -> PredictionRecord:
        resumed.append(question.id)
        return replay(question)

    run = run_benchmark(questions, counting, out, config=CONFIG)
    assert resumed == [q.id for q in questions[20:]]
    assert set(run.records) == {q.id for q in questions} and run.skipped == 20


def test_saga_eval_report_tables_and_plots_from_two_runs(ck25: Ck25, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from saga_kgqa.cli import app

    graph, questions, gold = ck25
    gold_path = tmp_path / "gold.jsonl"
    gold.save(gold_path)
    run_benchmark(questions, GoldReplayAnswerer(graph), tmp_path / "replay.jsonl", config=CONFIG)
    corrupt = GoldReplayAnswerer(graph, corrupt_every=5)
    run_benchmark(questions, corrupt, tmp_path / "corrupt.jsonl", config=CONFIG | {"corrupt_every": 5})
    runs = [f"{name},ck25,{tmp_path / (name + '.jsonl')},{gold_path}" for name in ("replay", "corrupt")]
    outcome = CliRunner().invoke(
        app, ["eval", "report", "--run", runs[0], "--run", runs[1], "--out", str(tmp_path / "report")]
    )
    assert outcome.exit_code == 0, outcome.output
    text = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    expected = 100 * (1 - len({q.id for n, q in enumerate(questions, 1) if n % 5 == 0} & _usable(gold)) / 44)
    assert "| replay | 100.00 | 100.00 |" in text
    assert f"| corrupt | {expected:.2f} | {expected:.2f} |" in text
    # Drawing imported matplotlib, which switches pyparsing's packrat cache on; the guard needs it off.
    assert not ParserElement._packratEnabled
    for name in ("f1.png", "empty_results.png", "actions.png"):
        data = (tmp_path / "report" / name).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 5_000
    bad = CliRunner().invoke(app, ["eval", "report", "--run", "only,two", "--out", str(tmp_path / "r2")])
    assert bad.exit_code == 2 and "SYSTEM,BENCHMARK,PREDICTIONS,GOLD" in bad.output


def _usable(gold: GoldStore) -> set[str]:
    return {record.question_id for record in gold if record.usable}

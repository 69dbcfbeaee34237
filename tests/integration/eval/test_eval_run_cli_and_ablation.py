"""`saga eval run` (gold replay, resume) and the ablation runner with a scripted model per role."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from saga_kgqa.app.graphs import build_graph
from saga_kgqa.benchmarks.loaders import load_benchmark
from saga_kgqa.cli import app
from saga_kgqa.config.context import SagaContext
from saga_kgqa.eval.qa.ablation import ablation_table, ablation_variants, run_ablation
from saga_kgqa.eval.qa.gold import build_gold_store
from saga_kgqa.runs.agent_answerer import AgentAnswerer
from saga_kgqa.runs.batch import Answerer, config_path
from tests.support.agent import open_toolbox
from tests.support.scripted_model import ScriptedChatModel, answer_type, tool_call

pytestmark = pytest.mark.shared_data


def test_saga_eval_run_gold_replay_then_resume(data_dir: Path, tmp_path: Path) -> None:
    graph_file = str(data_dir / "text2sparql_ck25" / "prod-inst.ttl")
    common = ["--data-dir", str(data_dir), "--data", graph_file]
    gold = tmp_path / "gold.jsonl"
    assert CliRunner().invoke(app, ["eval", "gold", "ck25", "--out", str(gold), *common]).exit_code == 0
    out = tmp_path / "run.jsonl"
    run = ["eval", "run", "ck25", "--answerer", "gold-replay", "--out", str(out), "--gold", str(gold), *common]
    first = CliRunner().invoke(app, [*run, "--limit", "10"])
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert (report["answered"], report["skipped"]) == (10, 0)
    assert report["summary"]["means"]["strict_em"] == 1.0
    # Same configuration, so the same file resumes; a different --limit is another configuration.
    again = CliRunner().invoke(app, [*run, "--limit", "10"])
    assert json.loads(again.stdout)["answered"] == 0
    assert json.loads(config_path(out).read_text(encoding="utf-8"))["answerer"] == "gold-replay"
    other = CliRunner().invoke(app, [*run, "--limit", "20"])
    assert other.exit_code == 2 and "another configuration" in other.output


def test_saga_eval_run_agent_without_model_settings_is_a_configuration_error(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_API_KEY", "SAGA_API_KEY", "SAGA_BASE_URL", "OPENAI_BASE_URL", "SAGA_MODEL_FACTORY"):
        monkeypatch.delenv(name, raising=False)
    outcome = CliRunner().invoke(
        app, ["eval", "run", "ck25", "--out", str(tmp_path / "r.jsonl"), "--data-dir", str(data_dir)]
    )
    assert outcome.exit_code == 2 and "ModelNotConfigured" in outcome.output and "OPENAI_API_KEY" in outcome.output
    assert not (tmp_path / "r.jsonl").exists()  # nothing was started


def test_ablation_runs_each_variant_into_its_own_file(data_dir: Path, tmp_path: Path) -> None:
    toolbox = open_toolbox([data_dir / "text2sparql_ck25" / "prod-inst.ttl"])
    try:
        questions = list(load_benchmark("ck25", data_dir).questions)[:4]
        gold = build_gold_store(questions, toolbox.graph)

        def answerer_for(context: SagaContext) -> Answerer:
            # One scripted model per role: the answer-type call is skipped when its prior is off.
            typing_model = ScriptedChatModel([answer_type("thing")] * len(questions))
            controller: list[Any] = []
            for question in questions:
                controller += [tool_call("execute", sparql=question.gold_sparql), tool_call("stop")]
            control_model = ScriptedChatModel(controller)
            graph = build_graph(
                model_factory=lambda _c, role: typing_model if role == "answer_type" else control_model,
                toolbox_factory=lambda _c: toolbox,
            )
            return AgentAnswerer(graph, context, toolbox.graph)

        variants = ablation_variants(components=True, coverage=True)
        assert list(variants)[:4] == ["full", "-type_filter", "-persistent_type_state", "-answer_type_prior"]
        summaries = run_ablation(
            questions, gold, SagaContext(max_steps=5), answerer_for, tmp_path, variants, config={"benchmark": "ck25"}
        )
    finally:
        toolbox.graph.close()
    assert set(summaries) == set(variants)
    for name, summary in summaries.items():
        assert (tmp_path / f"{name}.jsonl").is_file()
        assert summary["means"]["strict_em"] == 1.0, name
    saved = json.loads(config_path(tmp_path / "-answer_type_prior.jsonl").read_text(encoding="utf-8"))
    assert saved["context"]["answer_type_prior"] is False
    assert saved["context"]["type_filter"] is True
    coverage = json.loads(config_path(tmp_path / "coverage=0.25.jsonl").read_text(encoding="utf-8"))
    assert coverage["context"]["schema_coverage"] == 0.25
    table = ablation_table(summaries)
    assert table.count("\n") == len(variants) + 2 and "| full | 100.00 | 100.00 |" in table


def test_saga_eval_run_records_then_replays_from_the_cache(data_dir: Path, tmp_path: Path) -> None:
    graph_file = str(data_dir / "text2sparql_ck25" / "prod-inst.ttl")
    cache = tmp_path / "cache"
    base = ["eval", "run", "ck25", "--answerer", "gold-replay", "--limit", "5", "--data-dir", str(data_dir)]
    base += ["--data", graph_file, "--cache-dir", str(cache)]
    recorded = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "a.jsonl"), "--cache-mode", "record"])
    assert recorded.exit_code == 0, recorded.output
    assert len([p for p in cache.rglob("*") if p.is_file()]) >= 5
    replayed = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "b.jsonl"), "--cache-mode", "replay"])
    assert replayed.exit_code == 0, replayed.output
    first = [json.loads(line)["predicted_answers"] for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    second = [json.loads(line)["predicted_answers"] for line in (tmp_path / "b.jsonl").read_text().splitlines()]
    assert first == second and all(first)
    # A replay with an empty cache answers nothing live: every question fails with a cache miss.
    empty = ["--cache-dir", str(tmp_path / "empty-cache"), "--cache-mode", "replay", "--out", str(tmp_path / "c.jsonl")]
    missed = CliRunner().invoke(app, [*base[:-2], *empty])
    assert missed.exit_code == 0, missed.output
    statuses = {json.loads(line)["status"] for line in (tmp_path / "c.jsonl").read_text().splitlines()}
    assert statuses == {"failed"}
    assert "CacheMiss" in (tmp_path / "c.jsonl").read_text()

"""``saga eval run/ablate --method mars`` through the CLI: MARS's switches reach the run and its saved config.

The model is :func:`tests.support.replay_models.mars_replay_factory` behind ``SAGA_MODEL_FACTORY``:
it names the question's capitalised words, writes the gold query and accepts it, and records
every prompt with the context of the run (the ablation variant) that sent it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from saga_kgqa.benchmarks.loaders import load_benchmark
from saga_kgqa.cli import app
from saga_kgqa.eval.qa.ablation import MARS_VARIANTS
from saga_kgqa.runs.batch import config_path
from saga_kgqa.runs.predictions import PredictionRecord
from tests.support.replay_models import GOLD_ENV, MARS_PROMPTS

pytestmark = pytest.mark.shared_data

LIMIT = 3
_PATTERN_LINE = re.compile(r"^\[\d+\] ", re.MULTILINE)


@pytest.fixture
def mars_replay(data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    questions = list(load_benchmark("ck25", data_dir).questions)[:LIMIT]
    gold_map = tmp_path / "gold-map.json"
    gold_map.write_text(json.dumps({q.question: q.gold_sparql for q in questions}))
    monkeypatch.setenv("SAGA_MODEL_FACTORY", "tests.support.replay_models:mars_replay_factory")
    monkeypatch.setenv(GOLD_ENV, str(gold_map))
    for name in ("SAGA_MARS_TOP_N", "SAGA_MARS_HOP_LIMIT", "SAGA_MARS_EXAMPLES", "SAGA_MARS_TYPOLOGY"):
        monkeypatch.delenv(name, raising=False)
    MARS_PROMPTS.clear()
    yield
    MARS_PROMPTS.clear()


def _common(data_dir: Path) -> list[str]:
    graph = data_dir / "text2sparql_ck25" / "prod-inst.ttl"
    return ["--data-dir", str(data_dir), "--data", str(graph), "--limit", str(LIMIT)]


def _gold(data_dir: Path, tmp_path: Path) -> Path:
    gold = tmp_path / "gold.jsonl"
    graph = data_dir / "text2sparql_ck25" / "prod-inst.ttl"
    made = CliRunner().invoke(
        app, ["eval", "gold", "ck25", "--out", str(gold), "--data-dir", str(data_dir), "--data", str(graph)]
    )
    assert made.exit_code == 0, made.output
    return gold


def _records(path: Path) -> list[PredictionRecord]:
    return [PredictionRecord.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _reason_prompts(**switches: Any) -> list[str]:
    """The reasoner prompts of the runs whose context has these switch values."""
    return [
        "\n".join(str(m.content) for m in messages)
        for role, context, messages in MARS_PROMPTS
        if role == "mars_reason" and all(getattr(context, k) == v for k, v in switches.items())
    ]


def test_eval_run_mars_takes_the_options_and_the_environment(
    data_dir: Path, tmp_path: Path, mars_replay: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SAGA_MARS_TOP_N", "9")  # the option below wins over it
    monkeypatch.setenv("SAGA_MARS_HOP_LIMIT", "3")  # no option: the environment decides
    out = tmp_path / "mars.jsonl"
    outcome = CliRunner().invoke(
        app,
        [
            "eval", "run", "ck25", "--method", "mars", "--out", str(out), "--gold", str(_gold(data_dir, tmp_path)),
            *_common(data_dir), "--mars-top-n", "4", "--no-mars-verification", "--no-mars-examples",
            "--pattern-ranking", "bm25",
        ],
    )  # fmt: skip
    assert outcome.exit_code == 0, outcome.output
    report = json.loads(outcome.stdout)
    assert report["answered"] == LIMIT and report["summary"]["means"]["strict_em"] == 1.0
    saved = json.loads(config_path(out).read_text(encoding="utf-8"))
    assert saved["method"] == "mars"
    context = saved["context"]
    assert (context["mars_top_n"], context["mars_hop_limit"]) == (4, 3)
    assert (context["mars_verification"], context["mars_examples"], context["mars_typology"]) == (False, False, True)
    assert context["pattern_ranking"] == "bm25"
    # Without verification each question costs two model calls (link, reason), not three.
    assert [r.trace.llm_calls for r in _records(out)] == [2] * LIMIT
    prompts = _reason_prompts()
    assert len(prompts) == LIMIT
    assert all(len(_PATTERN_LINE.findall(p)) <= 4 and "Expansions left: 3" in p for p in prompts)
    assert any(len(_PATTERN_LINE.findall(p)) == 4 for p in prompts)  # a linked entity's patterns, cut to 4
    assert not any("e.g. " in p for p in prompts)
    assert not any(role == "mars_verify" for role, _, _ in MARS_PROMPTS)


def test_eval_ablate_mars_runs_each_ablation_and_each_changes_what_the_model_sees(
    data_dir: Path, tmp_path: Path, mars_replay: None
) -> None:
    out_dir = tmp_path / "ablate"
    outcome = CliRunner().invoke(
        app,
        [
            "eval", "ablate", "ck25", "--method", "mars", "--gold", str(_gold(data_dir, tmp_path)),
            "--out-dir", str(out_dir), *_common(data_dir), "--pattern-ranking", "bm25",
        ],
    )  # fmt: skip
    assert outcome.exit_code == 0, outcome.output
    rows = {line.split("|")[1].strip(): line for line in outcome.stdout.splitlines() if line.startswith("| ")}
    rows.pop("variant")  # the header
    assert set(rows) == set(MARS_VARIANTS)
    assert all("| 100.00 | 100.00 |" in rows[name] for name in MARS_VARIANTS)  # the gold is replayed in each
    saved = {name: json.loads(config_path(out_dir / f"{name}.jsonl").read_text(encoding="utf-8")) for name in rows}
    full = saved.pop("full")["context"]
    for name, config in saved.items():
        assert config["method"] == "mars" and config["variant"] == name
        changed = {k: v for k, v in config["context"].items() if full[k] != v}
        assert changed == MARS_VARIANTS[name], name
    # Each switch changes the prompts: pattern count, expansions left, examples, domain and range, the pass.
    full_prompts = _reason_prompts(mars_top_n=20, mars_hop_limit=5, mars_examples=True, mars_typology=True)
    assert any(len(_PATTERN_LINE.findall(p)) > 10 for p in full_prompts)
    assert all(len(_PATTERN_LINE.findall(p)) <= 10 for p in _reason_prompts(mars_top_n=10))
    assert all("Expansions left: 1" in p for p in _reason_prompts(mars_hop_limit=1))
    assert any("e.g. " in p for p in full_prompts)
    assert not any("e.g. " in p for p in _reason_prompts(mars_examples=False))
    assert any("domain" in p for p in full_prompts)
    assert not any("domain" in p for p in _reason_prompts(mars_typology=False))
    calls = {name: [r.trace.llm_calls for r in _records(out_dir / f"{name}.jsonl")] for name in MARS_VARIANTS}
    assert calls["full"] == [3] * LIMIT and calls["-verification"] == [2] * LIMIT

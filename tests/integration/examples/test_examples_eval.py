"""`saga eval run` with examples: the leakage guard refuses the benchmark's own pairs, whatever file holds them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from saga_kgqa.benchmarks.loaders import load_benchmark
from saga_kgqa.cli import app
from saga_kgqa.examples.leakage import ExampleLeakage
from saga_kgqa.examples.model import QueryExample, read_examples, write_examples
from saga_kgqa.examples.run_examples import verify_run_examples
from saga_kgqa.runs.batch import config_path

pytestmark = pytest.mark.shared_data

# A fair example for the corporate graph: not one of CK25's 50 questions or queries.
FAIR = QueryExample(
    question="Which employees work in the department dept-73191?",
    sparql="PREFIX pv: <http://ld.company.org/prod-vocab/>\nSELECT ?e WHERE { ?e pv:memberOf "
    "<http://ld.company.org/prod-instances/dept-73191> }",
    source="runs",
)


def _run(data_dir: Path, tmp_path: Path, examples: Path, name: str) -> tuple[int, str, dict[str, object]]:
    graph_file = str(data_dir / "text2sparql_ck25" / "prod-inst.ttl")
    out = tmp_path / f"{name}.jsonl"
    args = ["eval", "run", "ck25", "--answerer", "gold-replay", "--out", str(out), "--limit", "3"]
    args += ["--data-dir", str(data_dir), "--data", graph_file, "--examples", str(examples)]
    result = CliRunner().invoke(app, args)
    config = json.loads(config_path(out).read_text(encoding="utf-8")) if config_path(out).exists() else {}
    return result.exit_code, result.output, config


def test_eval_run_on_ck25_refuses_every_pair_of_the_ck25_examples_file(data_dir: Path, tmp_path: Path) -> None:
    queries = data_dir / "text2sparql_ck25" / "queries.ttl"
    code, output, config = _run(data_dir, tmp_path, queries, "ck25-file")
    assert code == 0, output
    assert "refused 50 of 50" in output
    examples = config["examples"]
    assert isinstance(examples, dict)
    assert (examples["kept"], examples["refused"]) == (0, 50)
    assert "file" not in examples
    assert not (tmp_path / "ck25-file.jsonl.examples.jsonl").exists()


def test_a_ck25_query_under_another_question_and_layout_is_refused_too(data_dir: Path, tmp_path: Path) -> None:
    first = next(iter(load_benchmark("ck25", data_dir).questions))
    assert first.gold_sparql is not None
    # same query, other prefix name, variable name and layout; the question reworded
    disguised = first.gold_sparql.replace("pv:", "vocab:").replace("?result", "?dept").replace("\n", " ")
    mixed = tmp_path / "examples-mixed.jsonl"
    write_examples([FAIR, QueryExample(question="Where does Karen work?", sparql=disguised, source="runs")], mixed)
    code, output, config = _run(data_dir, tmp_path, mixed, "mixed")
    assert code == 0, output
    examples = config["examples"]
    assert isinstance(examples, dict)
    assert (examples["kept"], examples["refused"]) == (1, 1)
    assert "gold query of benchmark question ck25:1-en" in examples["refused_because"][0]
    kept = read_examples(Path(str(examples["file"])))
    assert kept == [FAIR]


def test_scoring_refuses_a_run_whose_examples_file_now_leaks(data_dir: Path, tmp_path: Path) -> None:
    questions = list(load_benchmark("ck25", data_dir).questions)
    leaking = tmp_path / "run.examples.jsonl"
    write_examples([FAIR], leaking)
    config = {"examples": {"file": str(leaking)}}
    verify_run_examples(config, questions)  # clean
    first = questions[0]
    write_examples([FAIR, QueryExample(question=first.question, sparql="ASK {}", source="runs")], leaking)
    with pytest.raises(ExampleLeakage, match="ck25:1-en"):
        verify_run_examples(config, questions)

"""The runner's file handling under faults (issue 10, hole 12): a torn UTF-8 tail, two runs on one file."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.runs.batch import read_run, run_benchmark
from saga_kgqa.runs.predictions import PredictionRecord

QUESTIONS = [BenchmarkQuestion(id=f"t:{n}", benchmark="t", question=f"q{n}?") for n in range(4)]
CONFIG = {"answerer": "test", "model": "none"}


def answer(question: BenchmarkQuestion) -> PredictionRecord:
    return PredictionRecord(question_id=question.id, predicted_sparql='ASK { ?s ?p "é" }')


def test_a_torn_line_ending_inside_a_utf8_character_is_ignored(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    run_benchmark(QUESTIONS[:2], answer, out, config=CONFIG)
    torn = '{"question_id": "t:2", "predicted_sparql": "ASK { ?s ?p \\"é'.encode()[:-1]  # half of "é"
    with out.open("ab") as stream:
        stream.write(torn)
    assert set(read_run(out)) == {"t:0", "t:1"}
    again = run_benchmark(QUESTIONS, answer, out, config=CONFIG)
    assert again.answered == 2 and set(again.records) == {f"t:{n}" for n in range(4)}


def test_a_second_run_on_the_same_predictions_file_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    inside = threading.Event()
    release = threading.Event()

    def slow(question: BenchmarkQuestion) -> PredictionRecord:
        inside.set()
        release.wait(10)
        return answer(question)

    first = threading.Thread(target=run_benchmark, args=(QUESTIONS[:1], slow, out), kwargs={"config": CONFIG})
    first.start()
    try:
        assert inside.wait(10)
        second_seen: list[str] = []

        def counting(question: BenchmarkQuestion) -> PredictionRecord:
            second_seen.append(question.id)
            return answer(question)

        with pytest.raises(ConfigurationError, match="another run is writing"):
            run_benchmark(QUESTIONS, counting, out, config=CONFIG)
        assert second_seen == []
    finally:
        release.set()
        first.join(10)
    # Once the first run is over, the file is free again.
    assert run_benchmark(QUESTIONS, answer, out, config=CONFIG).answered == 3

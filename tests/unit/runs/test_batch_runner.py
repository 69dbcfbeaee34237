"""Resumable runner: one line per question, torn last line, resume, retry, config check, concurrency."""

from __future__ import annotations

from pathlib import Path

import pytest

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.runs.batch import config_path, read_run, run_benchmark
from saga_kgqa.runs.predictions import PredictionRecord, PredictionStatus

QUESTIONS = [BenchmarkQuestion(id=f"t:{n}", benchmark="t", question=f"q{n}?") for n in range(6)]
CONFIG = {"answerer": "test", "model": "none"}


class Recorder:
    def __init__(self, fail_on: set[str] | None = None) -> None:
        self.seen: list[str] = []
        self.fail_on = fail_on or set()

    def __call__(self, question: BenchmarkQuestion) -> PredictionRecord:
        self.seen.append(question.id)
        if question.id in self.fail_on:
            raise RuntimeError("model unreachable")
        return PredictionRecord(question_id=question.id, predicted_sparql="ASK {}")


def test_rerun_skips_finished_questions_and_ignores_a_torn_line(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    first = run_benchmark(QUESTIONS[:3], Recorder(), out, config=CONFIG)
    assert (first.answered, first.skipped) == (3, 0)
    assert config_path(out).is_file()
    with out.open("a", encoding="utf-8") as stream:  # a kill in the middle of a write
        stream.write('{"question_id": "t:3", "predicted_sp')
    assert set(read_run(out)) == {"t:0", "t:1", "t:2"}
    again = Recorder()
    second = run_benchmark(QUESTIONS, again, out, config=CONFIG)
    assert again.seen == ["t:3", "t:4", "t:5"]
    assert (second.answered, second.skipped) == (3, 3) and len(second.records) == 6
    # The torn fragment was cut before appending: every line is a whole record.
    assert len(out.read_text(encoding="utf-8").splitlines()) == 6


def test_failures_are_recorded_and_retried_on_request(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    summary = run_benchmark(QUESTIONS, Recorder(fail_on={"t:2"}), out, config=CONFIG)
    failed = summary.records["t:2"]
    assert failed.status is PredictionStatus.FAILED and "model unreachable" in (failed.error or "")
    plain = Recorder()
    run_benchmark(QUESTIONS, plain, out, config=CONFIG)
    assert plain.seen == []
    retry = Recorder()
    after = run_benchmark(QUESTIONS, retry, out, config=CONFIG, retry_failed=True)
    assert retry.seen == ["t:2"]
    assert after.records["t:2"].status is PredictionStatus.ANSWERED
    assert len(out.read_text(encoding="utf-8").splitlines()) == 7  # append-only: the old line stays


def test_another_configuration_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    run_benchmark(QUESTIONS[:1], Recorder(), out, config=CONFIG)
    with pytest.raises(ConfigurationError, match="another configuration"):
        run_benchmark(QUESTIONS, Recorder(), out, config=CONFIG | {"model": "other"})
    with pytest.raises(ConfigurationError, match="concurrency"):
        run_benchmark(QUESTIONS, Recorder(), out, config=CONFIG, concurrency=0)


def test_concurrent_run_writes_every_question_once(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    seen: list[str] = []
    summary = run_benchmark(
        QUESTIONS * 1, Recorder(), out, config=CONFIG, concurrency=3, progress=lambda r: seen.append(r.question_id)
    )
    assert sorted(seen) == sorted(q.id for q in QUESTIONS)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 6 and set(summary.records) == {q.id for q in QUESTIONS}


_KILLED_RUN = """
import sys, time
from pathlib import Path
from saga_kgqa.runs.predictions import PredictionRecord
from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.runs.batch import run_benchmark

questions = [BenchmarkQuestion(id=f"t:{n}", benchmark="t", question="q?") for n in range(400)]

def slow(question):
    time.sleep(0.02)
    return PredictionRecord(question_id=question.id, predicted_sparql="ASK {}" + " " * 5000)

run_benchmark(questions, slow, Path(sys.argv[1]), config={"answerer": "slow"})
"""


def test_sigkill_mid_run_then_resume_finishes_every_question_once(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "killed.jsonl"
    process = subprocess.Popen([sys.executable, "-c", _KILLED_RUN, str(out)])
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not out.exists() or out.read_bytes().count(b"\n") < 20):
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    finished = read_run(out)
    assert 20 <= len(finished) < 400
    questions = [BenchmarkQuestion(id=f"t:{n}", benchmark="t", question="q?") for n in range(400)]
    resumed = Recorder()
    run_benchmark(questions, resumed, out, config={"answerer": "slow"})
    assert set(resumed.seen).isdisjoint(finished)
    assert len(resumed.seen) == 400 - len(finished)
    assert len(read_run(out)) == 400


def test_a_run_started_before_a_context_switch_existed_resumes_while_the_switch_is_at_its_default(
    tmp_path: Path,
) -> None:
    import dataclasses
    import json

    from saga_kgqa.config.context import SagaContext

    out = tmp_path / "run.jsonl"
    now = CONFIG | {"context": dataclasses.asdict(SagaContext())}
    run_benchmark(QUESTIONS[:1], Recorder(), out, config=now)
    # The configuration as a version without the answer_shape and examples_tool switches saved it.
    saved = json.loads(config_path(out).read_text(encoding="utf-8"))
    for added in ("answer_shape", "examples_tool"):
        del saved["context"][added]
    config_path(out).write_text(json.dumps(saved), encoding="utf-8")
    resumed = Recorder()
    run_benchmark(QUESTIONS[:2], resumed, out, config=now)
    assert resumed.seen == ["t:1"]
    # A switch turned on is another configuration, and so is a changed switch the old file has.
    on = CONFIG | {"context": dataclasses.asdict(SagaContext(answer_shape=True))}
    with pytest.raises(ConfigurationError, match="another configuration"):
        run_benchmark(QUESTIONS, Recorder(), out, config=on)
    other = CONFIG | {"context": dataclasses.asdict(SagaContext(max_steps=7))}
    with pytest.raises(ConfigurationError, match="another configuration"):
        run_benchmark(QUESTIONS, Recorder(), out, config=other)

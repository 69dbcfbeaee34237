"""Resumable benchmark runs: one prediction record per question, appended as one line.

Every finished question is written as a single ``write`` of one JSON line to a file opened
for appending, then flushed to disk, so a killed run leaves at most one torn last line;
:func:`read_run` ignores such a line, the next run cuts it off before appending, and that
question is simply done again. Rerunning
skips every question that already has a record; ``retry_failed`` redoes the ones that
failed or timed out (the newer line supersedes the older when read). The run's
configuration is saved beside the predictions and must match on resume, so one file never
mixes two set-ups.

The runner is independent of how a question is answered: it takes any :class:`Answerer`.
:class:`GoldReplayAnswerer` answers by running the gold query itself, the scripted
baseline that must score EM 1 on every question with usable gold.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from threading import Lock
from typing import Any, Protocol

from pydantic import ValidationError

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.config.context import SagaContext
from saga_kgqa.errors import ConfigurationError, SagaError
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.runs.gold_runner import GOLD_LIMITS, GoldRunner, replay_outcome
from saga_kgqa.runs.predictions import PredictionRecord, PredictionStatus, TraceCounters

#: Statuses ``retry_failed`` runs again.
RETRIED = frozenset({PredictionStatus.FAILED, PredictionStatus.TIMEOUT})


class Answerer(Protocol):
    """Answers one question (an agent, or a scripted stand-in)."""

    def __call__(self, question: BenchmarkQuestion, /) -> PredictionRecord:
        """Produce the prediction record of one question."""
        ...


@dataclass(frozen=True, slots=True)
class RunSummary:
    """What one call of :func:`run_benchmark` did.

    Attributes:
        answered: Questions answered in this call.
        skipped: Questions skipped because a record already existed.
        records: The latest record of every question in the file, by question id.
    """

    answered: int
    skipped: int
    records: dict[str, PredictionRecord]


def config_path(predictions: Path) -> Path:
    """Where a run's configuration is saved: beside the predictions."""
    return predictions.with_name(predictions.name + ".config.json")


def read_run(predictions: Path) -> dict[str, PredictionRecord]:
    """The latest record per question of a predictions file (absent file: none).

    A last line without its newline is a write a kill interrupted and is ignored.

    Raises:
        ConfigurationError: A complete line is not a prediction record.
    """
    if not predictions.exists():
        return {}
    try:
        data = predictions.read_bytes()
    except OSError as exc:
        raise ConfigurationError(f"cannot read {predictions}: {exc}") from exc
    # Split bytes, not text: a torn write can end inside a UTF-8 character, and the part
    # after the last newline (empty, or that torn write) is never decoded.
    lines = data.split(b"\n")
    records: dict[str, PredictionRecord] = {}
    for number, raw in enumerate(lines[:-1], start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ConfigurationError(f"{predictions}:{number}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
        if line.strip():
            try:
                record = PredictionRecord.model_validate_json(line)
            except ValidationError as exc:
                raise ConfigurationError(f"{predictions}:{number}: not a prediction record: {exc}") from exc
            records[record.question_id] = record
    return records


def _check_config(predictions: Path, config: dict[str, Any]) -> None:
    path = config_path(predictions)
    if path.exists():
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigurationError(f"cannot read run configuration {path}: {exc}") from exc
        if not _same_config(saved, config):
            raise ConfigurationError(
                f"{predictions} was started with another configuration ({path}); use a new predictions file"
            )
        return
    predictions.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _same_config(saved: Any, config: dict[str, Any]) -> bool:
    """Equal, counting a context switch the saved file lacks as equal when it is at its default.

    A run started before a switch was added (its file has no such key) resumes as long as the
    switch stays at the default, which is how the older version behaved; any other difference refuses.
    """
    if saved == config:
        return True
    old, new = (saved.get("context") if isinstance(saved, dict) else None), config.get("context")
    if not isinstance(old, dict) or not isinstance(new, dict):
        return False
    defaults = dataclasses.asdict(SagaContext())
    added = {key: value for key, value in new.items() if key not in old and key in defaults and value == defaults[key]}
    return bool(added) and {**saved, "context": {**old, **added}} == config


def _drop_torn_tail(predictions: Path) -> None:
    """Cut a last line a kill left without its newline, so the next record starts on a line of its own."""
    if not predictions.exists():
        return
    with predictions.open("rb+") as stream:
        size = stream.seek(0, os.SEEK_END)
        if size == 0:
            return
        stream.seek(size - 1)
        if stream.read(1) == b"\n":
            return
        # Scan back for the last newline in blocks: the torn line is at most one record long.
        end = size
        while end > 0:
            start = max(0, end - 65536)
            stream.seek(start)
            block = stream.read(end - start)
            cut = block.rfind(b"\n")
            if cut >= 0:
                stream.truncate(start + cut + 1)
                return
            end = start
        stream.truncate(0)


def lock_path(predictions: Path) -> Path:
    """The lock file of a predictions file: held by the one run writing it."""
    return predictions.with_name(predictions.name + ".lock")


class _RunLock:
    """An exclusive ``flock`` on the predictions' lock file; the kernel drops it when the process dies.

    Two runs appending to one file would both answer every question (each reads the file
    before the other writes), so the second run is refused instead.
    """

    def __init__(self, predictions: Path) -> None:
        self._predictions = predictions
        self._path = lock_path(predictions)
        self._fd: int | None = None

    def __enter__(self) -> _RunLock:
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", errors="replace").strip() or "unknown"
            os.close(fd)
            raise ConfigurationError(
                f"another run is writing {self._predictions} (process {holder} holds {self._path}); "
                "wait for it to finish or use another predictions file"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing releases the lock
            self._fd = None


class _AppendLog:
    """One atomic line per record: a single ``os.write`` on an ``O_APPEND`` descriptor, then fsync."""

    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._lock = Lock()

    def append(self, record: PredictionRecord) -> None:
        data = (record.model_dump_json() + "\n").encode("utf-8")
        with self._lock:
            while data:  # os.write may write less than asked; the lock keeps the line whole
                data = data[os.write(self._fd, data) :]
            os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)


def run_benchmark(
    questions: Sequence[BenchmarkQuestion],
    answerer: Answerer,
    predictions: Path,
    *,
    config: dict[str, Any],
    retry_failed: bool = False,
    concurrency: int = 1,
    progress: Callable[[PredictionRecord], None] | None = None,
) -> RunSummary:
    """Answer every question that has no record yet, appending one line per question.

    Args:
        questions: The benchmark questions.
        answerer: Answers one question; an exception it raises becomes a ``failed`` record.
        predictions: The JSONL predictions file (created or resumed).
        config: The exact run configuration, saved beside the predictions.
        retry_failed: Also redo questions whose record is ``failed`` or ``timeout``.
        concurrency: Questions answered at once (per-endpoint limits are the backend's).
        progress: Called with each new record (e.g. to advance a progress bar).

    Raises:
        ConfigurationError: The file belongs to another configuration or is corrupt.
    """
    if concurrency < 1:
        raise ConfigurationError("concurrency must be at least 1")
    predictions.parent.mkdir(parents=True, exist_ok=True)
    with _RunLock(predictions):
        return _run_locked(questions, answerer, predictions, config, retry_failed, concurrency, progress)


def _run_locked(
    questions: Sequence[BenchmarkQuestion],
    answerer: Answerer,
    predictions: Path,
    config: dict[str, Any],
    retry_failed: bool,
    concurrency: int,
    progress: Callable[[PredictionRecord], None] | None,
) -> RunSummary:
    _check_config(predictions, config)
    done = read_run(predictions)
    _drop_torn_tail(predictions)
    todo = [q for q in questions if q.id not in done or (retry_failed and done[q.id].status in RETRIED)]
    log = _AppendLog(predictions)
    try:

        def attempt(question: BenchmarkQuestion) -> None:
            record = _answer(answerer, question)
            log.append(record)
            if progress is not None:
                progress(record)

        if concurrency == 1:
            for question in todo:
                attempt(question)
        else:
            with ThreadPoolExecutor(max_workers=concurrency) as pool:
                list(pool.map(attempt, todo))
    finally:
        log.close()
    return RunSummary(answered=len(todo), skipped=len(questions) - len(todo), records=read_run(predictions))


def _answer(answerer: Answerer, question: BenchmarkQuestion) -> PredictionRecord:
    started = time.perf_counter()
    try:
        return answerer(question)
    except Exception as exc:
        return PredictionRecord(
            question_id=question.id,
            status=PredictionStatus.FAILED,
            error=f"{type(exc).__name__}: {exc}",
            trace=TraceCounters(latency_s=time.perf_counter() - started),
        )


class GoldReplayAnswerer:
    """Scripted answerer: runs each question's gold query as its final answer.

    With ``corrupt_every=n`` every n-th question it answers (1-based, in call order) gets
    an empty answer instead, for a known, lower expected score.
    """

    def __init__(self, graph: GoldRunner, *, corrupt_every: int | None = None) -> None:
        """Replay gold queries on ``graph``."""
        self._graph = graph
        self._corrupt_every = corrupt_every
        self._calls = 0
        self._lock = Lock()

    def __call__(self, question: BenchmarkQuestion, /) -> PredictionRecord:
        """Run the gold query (or return the corrupted empty answer)."""
        with self._lock:
            self._calls += 1
            corrupt = self._corrupt_every is not None and self._calls % self._corrupt_every == 0
        started = time.perf_counter()
        if question.gold_sparql is None:
            return PredictionRecord(question_id=question.id, status=PredictionStatus.NO_QUERY, outcome=replay_outcome())
        try:
            result = self._graph.query(question.gold_sparql, GOLD_LIMITS)
        except SagaError as exc:
            return PredictionRecord(
                question_id=question.id,
                predicted_sparql=question.gold_sparql,
                status=PredictionStatus.FAILED,
                outcome=replay_outcome(error=exc),
                error=f"{type(exc).__name__}: {exc.message}",
                trace=TraceCounters(queries_executed=1, latency_s=time.perf_counter() - started),
            )
        if corrupt:
            result = QueryResult(form="SELECT", variables=result.variables)
        empty = result.form != "ASK" and not result.rows
        return PredictionRecord(
            question_id=question.id,
            predicted_sparql=question.gold_sparql,
            predicted_answers=result.to_sparql_json(),
            # The outcome of what was recorded as the answer (a corrupted one is empty), as the agent's records say.
            outcome=replay_outcome(result),
            trace=TraceCounters(
                actions={"execute": 1},
                queries_executed=1,
                queries_empty=int(empty),
                latency_s=time.perf_counter() - started,
            ),
        )

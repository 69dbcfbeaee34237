"""The gold store: one frozen gold answer per question, with where and when it came from.

Gold answers are frozen from the dataset when it ships full results (QALD, WikiWebQuestions
dev); otherwise the gold SPARQL is run on the configured store or endpoint and the result
is stored with the endpoint id and the time. When a dataset ships only bare values
(TEXT2SPARQL's flattened result sets, CWQ labels) and a graph is configured, the computed
result is kept and checked against those values; a disagreement is marked ``drift``.

Only ``ok`` gold is scored. ``gold_unavailable`` (the gold query failed, was cut short, or
nothing could give an answer), ``gold_empty`` and ``drift`` are reported, never scored as 0
or 1. :func:`drift_report` re-runs the gold queries of frozen gold and says what changed.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.errors import ConfigurationError, SagaError
from saga_kgqa.eval.qa.metrics import answer_terms, answer_values, is_empty
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.runs.gold_runner import GOLD_LIMITS, GoldRunner
from saga_kgqa.runs.predictions import read_jsonl

#: Changed answers a drift entry lists by name per side (the counts are always complete).
DRIFT_SHOWN = 20


class GoldStatus(StrEnum):
    """Whether a question's gold can be scored."""

    OK = "ok"
    EMPTY = "gold_empty"
    UNAVAILABLE = "gold_unavailable"
    DRIFT = "drift"


class GoldRecord(BaseModel):
    """The gold of one question.

    Attributes:
        question_id: The question.
        status: Whether it can be scored.
        answers: The gold result as SPARQL 1.1 JSON (``None`` when unavailable).
        answers_are_values: The answers are bare values, comparable by value only.
        source: ``dataset`` (shipped) or ``computed`` (gold SPARQL run by us).
        endpoint_id: Where it was computed.
        computed_at: When it was computed (UTC).
        error: Why the gold is unavailable.
        note: What differs, for drift.
    """

    model_config = ConfigDict(frozen=True)

    question_id: str
    status: GoldStatus
    answers: dict[str, Any] | None = None
    answers_are_values: bool = False
    source: Literal["dataset", "computed"] = "dataset"
    endpoint_id: str | None = None
    computed_at: datetime | None = None
    error: str | None = None
    note: str | None = None

    @property
    def usable(self) -> bool:
        """Only ``ok`` gold is scored."""
        return self.status is GoldStatus.OK and self.answers is not None

    def result(self) -> QueryResult:
        """The gold answers as a typed result.

        Raises:
            ConfigurationError: This record has no answers.
        """
        if self.answers is None:
            raise ConfigurationError(f"gold of {self.question_id} is {self.status.value}: no answers")
        return QueryResult.from_sparql_json(self.answers)


class GoldStore:
    """Gold records by question id, saved as one JSON object per line."""

    def __init__(self, records: Iterable[GoldRecord] = ()) -> None:
        """Hold ``records`` (a later record for the same question replaces an earlier one)."""
        self._records = {record.question_id: record for record in records}

    def get(self, question_id: str) -> GoldRecord | None:
        """The record of one question, if any."""
        return self._records.get(question_id)

    def __iter__(self) -> Iterator[GoldRecord]:
        return iter(self._records.values())

    def __len__(self) -> int:
        return len(self._records)

    def status_counts(self) -> dict[str, int]:
        """Status -> number of questions."""
        return dict(sorted(Counter(record.status.value for record in self).items()))

    def save(self, path: Path) -> None:
        """Write the store atomically (a reader never sees half a file)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            for record in self:
                stream.write(record.model_dump_json() + "\n")
        os.replace(temporary, path)

    @classmethod
    def load(cls, path: Path) -> GoldStore:
        """Read a store written by :meth:`save`.

        Raises:
            ConfigurationError: The file is unreadable or holds something else.
        """
        return cls(read_jsonl(path, GoldRecord, record="gold record", file="gold store"))


def _now() -> datetime:
    return datetime.now(UTC)


def build_gold_store(
    questions: Iterable[BenchmarkQuestion],
    graph: GoldRunner | None = None,
    *,
    limits: ExecutionLimits = GOLD_LIMITS,
    clock: Callable[[], datetime] = _now,
) -> GoldStore:
    """Freeze the gold of every question.

    Args:
        questions: The benchmark questions.
        graph: Where to run gold SPARQL for questions whose dataset ships no full result.
        limits: Limits for each gold query.
        clock: The time stamped on computed gold.
    """
    return GoldStore(_gold_record(question, graph, limits, clock) for question in questions)


def _gold_record(
    question: BenchmarkQuestion, graph: GoldRunner | None, limits: ExecutionLimits, clock: Callable[[], datetime]
) -> GoldRecord:
    shipped = question.gold_result()
    if shipped is not None and (not question.answers_are_values or graph is None or question.gold_sparql is None):
        return GoldRecord(
            question_id=question.id,
            status=GoldStatus.EMPTY if is_empty(shipped) else GoldStatus.OK,
            answers=question.gold_answers,
            answers_are_values=question.answers_are_values,
        )
    if graph is None or question.gold_sparql is None:
        missing = "no gold SPARQL" if question.gold_sparql is None else "no graph configured"
        return GoldRecord(
            question_id=question.id, status=GoldStatus.UNAVAILABLE, error=f"no shipped answers and {missing}"
        )
    computed_at = clock()
    computed, error = _run_gold(graph, question.gold_sparql, limits)
    if computed is None:
        return GoldRecord(
            question_id=question.id,
            status=GoldStatus.UNAVAILABLE,
            error=error,
            source="computed",
            endpoint_id=graph.endpoint_id,
            computed_at=computed_at,
        )
    status, note = GoldStatus.OK, None
    if is_empty(computed):
        status = GoldStatus.EMPTY
    if shipped is not None:
        note = _value_difference(answer_values(shipped), answer_values(computed))
        if note is not None:
            status = GoldStatus.DRIFT
    return GoldRecord(
        question_id=question.id,
        status=status,
        answers=computed.to_sparql_json(),
        note=note,
        source="computed",
        endpoint_id=graph.endpoint_id,
        computed_at=computed_at,
    )


def _run_gold(graph: GoldRunner, sparql: str, limits: ExecutionLimits) -> tuple[QueryResult | None, str | None]:
    try:
        result = graph.query(sparql, limits)
    except SagaError as exc:
        return None, f"{type(exc).__name__}: {exc.message}"
    if result.truncated or not result.complete:
        return None, "the gold result was cut short or is incomplete: " + "; ".join(result.notes)
    return result, None


def _value_difference(shipped: frozenset[str], computed: frozenset[str]) -> str | None:
    if shipped == computed:
        return None
    missing, extra = len(shipped - computed), len(computed - shipped)
    return f"shipped values differ from the computed result: {missing} missing, {extra} extra"


@dataclass(frozen=True, slots=True)
class DriftEntry:
    """How one frozen gold answer compares with a fresh run of its gold query.

    Attributes:
        question_id: The question.
        outcome: ``same``, ``changed`` or ``fresh_failed``.
        missing: How many frozen answers the fresh run no longer returns.
        extra: How many fresh answers the frozen gold lacks.
        error: Why the fresh run failed.
        missing_answers: Those frozen answers (sorted, at most :data:`DRIFT_SHOWN`).
        extra_answers: Those fresh answers (sorted, at most :data:`DRIFT_SHOWN`).
        gold_made_at: When the frozen gold was computed (``None``: shipped with the dataset).
    """

    question_id: str
    outcome: Literal["same", "changed", "fresh_failed"]
    missing: int = 0
    extra: int = 0
    error: str | None = None
    missing_answers: tuple[str, ...] = ()
    extra_answers: tuple[str, ...] = ()
    gold_made_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class DriftReport:
    """Frozen gold compared with a fresh run on one endpoint."""

    endpoint_id: str
    run_at: datetime
    entries: tuple[DriftEntry, ...]

    def counts(self) -> dict[str, int]:
        """Outcome -> number of questions."""
        return dict(sorted(Counter(entry.outcome for entry in self.entries).items()))

    def changed(self) -> list[str]:
        """Ids of the questions whose gold changed."""
        return [entry.question_id for entry in self.entries if entry.outcome == "changed"]


def drift_report(
    store: GoldStore,
    questions: Sequence[BenchmarkQuestion],
    graph: GoldRunner,
    *,
    limits: ExecutionLimits = GOLD_LIMITS,
    clock: Callable[[], datetime] = _now,
) -> DriftReport:
    """Re-run the gold query of every answered gold record and compare the answers.

    Answers are compared as canonical terms (as values when the gold is value-only), so a
    literal merely written differently is not drift.
    """
    entries = []
    for question in questions:
        record = store.get(question.id)
        if record is None or record.answers is None or question.gold_sparql is None:
            continue
        fresh, error = _run_gold(graph, question.gold_sparql, limits)
        if fresh is None:
            entries.append(DriftEntry(question.id, "fresh_failed", error=error, gold_made_at=record.computed_at))
            continue
        frozen_answers, fresh_answers = (
            _comparable(record.result(), record.answers_are_values),
            _comparable(fresh, record.answers_are_values),
        )
        missing, extra = frozen_answers - fresh_answers, fresh_answers - frozen_answers
        entries.append(
            DriftEntry(
                question.id,
                "changed" if missing or extra else "same",
                len(missing),
                len(extra),
                missing_answers=_shown(missing),
                extra_answers=_shown(extra),
                gold_made_at=record.computed_at,
            )
        )
    return DriftReport(endpoint_id=graph.endpoint_id, run_at=clock(), entries=tuple(entries))


def _shown(answers: frozenset[Any]) -> tuple[str, ...]:
    """The first :data:`DRIFT_SHOWN` answers as text, sorted (a term by its value)."""
    texts = sorted(str(getattr(answer, "value", answer)) for answer in answers)
    return tuple(texts[:DRIFT_SHOWN])


def _comparable(result: QueryResult, values_only: bool) -> frozenset[Any]:
    if result.form == "ASK":
        return frozenset({result.boolean})
    return answer_values(result) if values_only else answer_terms(result, canonical=True)

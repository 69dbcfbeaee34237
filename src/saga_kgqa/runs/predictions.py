"""The prediction record a run writes per question, and what its trace counters add up to.

One record per question: the predicted SPARQL, the answers it produced (SPARQL 1.1 JSON),
how the attempt ended, and the counters of its trace (actions per tool, LLM calls,
tokens, latency, executed and empty queries). Records are one JSON object per line.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.state.outcome import RunStatus

_Record = TypeVar("_Record", bound=BaseModel)


class PredictionStatus(StrEnum):
    """How the attempt at a question ended."""

    ANSWERED = "answered"
    NO_QUERY = "no_query"
    FAILED = "failed"
    TIMEOUT = "timeout"
    BUDGET_EXHAUSTED = "budget_exhausted"


class TraceCounters(BaseModel):
    """What one attempt cost.

    Attributes:
        actions: Tool name -> number of calls.
        llm_calls: Model calls.
        prompt_tokens: Tokens sent to the model.
        completion_tokens: Tokens the model produced.
        latency_s: Wall-clock seconds for the question.
        queries_executed: SPARQL queries run against the graph (the final one included).
        queries_empty: Of those, the ones that returned no row.
    """

    model_config = ConfigDict(frozen=True)

    actions: dict[str, int] = Field(default_factory=dict)
    llm_calls: int = Field(default=0, ge=0)
    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    latency_s: float = Field(default=0.0, ge=0)
    queries_executed: int = Field(default=0, ge=0)
    queries_empty: int = Field(default=0, ge=0)


class PredictionRecord(BaseModel):
    """One question's prediction.

    Attributes:
        question_id: The benchmark question id.
        predicted_sparql: The final query, if any.
        predicted_answers: Its result as SPARQL 1.1 JSON, if it ran.
        status: How the attempt ended (for scoring and retries).
        outcome: The run's outcome as every face reports it (:data:`~saga_kgqa.state.outcome.RunStatus`);
            ``None`` for answerers that are not the agent and for files written before outcomes existed.
        error: The error message when it failed.
        trace: The trace counters.
    """

    model_config = ConfigDict(frozen=True)

    question_id: str
    predicted_sparql: str | None = None
    predicted_answers: dict[str, Any] | None = None
    status: PredictionStatus = PredictionStatus.ANSWERED
    outcome: RunStatus | None = None
    error: str | None = None
    trace: TraceCounters = Field(default_factory=TraceCounters)

    @field_validator("predicted_answers")
    @classmethod
    def _valid_sparql_json(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None:
            QueryResult.from_sparql_json(value)
        return value

    def predicted_result(self) -> QueryResult | None:
        """The predicted answers as a typed result; ``None`` when there are none to score."""
        return None if self.predicted_answers is None else QueryResult.from_sparql_json(self.predicted_answers)


def read_predictions(path: Path) -> list[PredictionRecord]:
    """Read a JSONL predictions file (blank lines ignored).

    Raises:
        ConfigurationError: The file is unreadable or a line is not a prediction record.
    """
    return read_jsonl(path, PredictionRecord, record="prediction record")


def read_jsonl(path: Path, model: type[_Record], *, record: str, file: str = "") -> list[_Record]:
    """The records of a JSONL file, one ``model`` per line (blank lines ignored).

    Args:
        path: The file.
        model: The record class.
        record: What a line is, in the error (``prediction record``).
        file: What the file is, in the error (``gold store``), or nothing.

    Raises:
        ConfigurationError: The file is unreadable or a line is not a ``model``.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"cannot read {file + ' ' if file else ''}{path}: {exc}") from exc
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(model.model_validate_json(line))
        except ValidationError as exc:
            raise ConfigurationError(f"{path}:{number}: not a {record}: {exc}") from exc
    return records


def summarise_traces(traces: Sequence[TraceCounters]) -> dict[str, Any]:
    """Totals and per-question means of trace counters, with latency percentiles.

    ``query_empty_rate`` is the share of executed queries that returned no row (the
    paper's Table 4 diagnostic counts the queries an agent runs, not just final answers).
    """
    count = len(traces)
    actions: Counter[str] = Counter()
    for trace in traces:
        actions.update(trace.actions)
    latencies = sorted(t.latency_s for t in traces)
    executed = sum(t.queries_executed for t in traces)
    empty = sum(t.queries_empty for t in traces)
    totals = {
        "llm_calls": sum(t.llm_calls for t in traces),
        "prompt_tokens": sum(t.prompt_tokens for t in traces),
        "completion_tokens": sum(t.completion_tokens for t in traces),
        "queries_executed": executed,
        "queries_empty": empty,
        "actions": sum(actions.values()),
    }
    return {
        "questions": count,
        "totals": totals,
        "mean_per_question": {key: value / count if count else 0.0 for key, value in totals.items()},
        "actions_per_tool": dict(sorted(actions.items())),
        "latency_s": _latency(latencies),
        "query_empty_rate": empty / executed if executed else None,
    }


def _latency(sorted_values: list[float]) -> dict[str, float]:
    if not sorted_values:
        return {"mean": 0.0, "median": 0.0, "p95": 0.0, "max": 0.0}
    index = max(0, round(0.95 * len(sorted_values) + 0.5) - 1)
    return {
        "mean": statistics.fmean(sorted_values),
        "median": statistics.median(sorted_values),
        "p95": sorted_values[min(index, len(sorted_values) - 1)],
        "max": sorted_values[-1],
    }


def outcome_counts(records: Sequence[PredictionRecord]) -> dict[str, int]:
    """How many predictions ended in each run outcome (``unrecorded`` for records that carry none)."""
    return dict(sorted(Counter(record.outcome or "unrecorded" for record in records).items()))


#: The outcome of a record written without one (before outcomes existed, or by another answerer).
_OUTCOME_OF_STATUS: dict[PredictionStatus, RunStatus] = {
    PredictionStatus.ANSWERED: "answered",
    PredictionStatus.NO_QUERY: "refused",
    PredictionStatus.FAILED: "failed",
    PredictionStatus.TIMEOUT: "timed_out",
    PredictionStatus.BUDGET_EXHAUSTED: "partial",
}


def record_outcome(record: PredictionRecord) -> RunStatus:
    """The run outcome of a prediction: the one it carries, else read from its status (old files)."""
    if record.outcome is not None:
        return record.outcome
    if record.status is PredictionStatus.BUDGET_EXHAUSTED and not record.predicted_sparql:
        return "failed"
    return _OUTCOME_OF_STATUS[record.status]

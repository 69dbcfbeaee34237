"""Prediction records, trace aggregation, and `saga eval score` on our own predictions format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.eval.qa.gold import GoldRecord, GoldStatus, GoldStore
from saga_kgqa.kg.core.result import QueryResult, Term
from saga_kgqa.runs.predictions import (
    PredictionRecord,
    PredictionStatus,
    TraceCounters,
    read_predictions,
    summarise_traces,
)


def rows(*values: str) -> dict[str, object]:
    result = QueryResult(form="SELECT", variables=["x"], rows=[{"x": Term("uri", v)} for v in values])
    return result.to_sparql_json()


def test_trace_summary_totals_means_and_empty_query_rate() -> None:
    traces = [
        TraceCounters(
            actions={"search": 2, "execute": 3},
            llm_calls=4,
            prompt_tokens=100,
            latency_s=1.0,
            queries_executed=3,
            queries_empty=1,
        ),
        TraceCounters(
            actions={"execute": 1},
            llm_calls=2,
            completion_tokens=10,
            latency_s=3.0,
            queries_executed=1,
            queries_empty=1,
        ),
    ]
    summary = summarise_traces(traces)
    assert summary["actions_per_tool"] == {"execute": 4, "search": 2}
    assert summary["totals"]["llm_calls"] == 6 and summary["mean_per_question"]["llm_calls"] == 3.0
    assert summary["query_empty_rate"] == pytest.approx(0.5)
    assert summary["latency_s"]["mean"] == 2.0 and summary["latency_s"]["max"] == 3.0
    assert summarise_traces([])["query_empty_rate"] is None


def test_records_round_trip_and_reject_bad_lines(tmp_path: Path) -> None:
    record = PredictionRecord(question_id="q1", predicted_sparql="SELECT ...", predicted_answers=rows("http://a"))
    path = tmp_path / "predictions.jsonl"
    path.write_text(record.model_dump_json() + "\n\n", encoding="utf-8")
    assert read_predictions(path) == [record]
    result = record.predicted_result()
    assert result is not None and result.rows[0]["x"].value == "http://a"
    path.write_text('{"question_id": "q1", "trace": {"llm_calls": -1}}\n', encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"predictions\.jsonl:1"):
        read_predictions(path)
    with pytest.raises(ValueError, match="SPARQL JSON"):
        PredictionRecord(question_id="q", predicted_answers={"nonsense": True})


def test_cli_scores_predictions_against_a_gold_store_and_skips_unusable_gold(tmp_path: Path) -> None:
    gold = GoldStore(
        [
            GoldRecord(question_id="a", status=GoldStatus.OK, answers=rows("http://a", "http://b")),
            GoldRecord(question_id="b", status=GoldStatus.UNAVAILABLE, error="timeout"),
        ]
    )
    gold.save(tmp_path / "gold.jsonl")
    records = [
        PredictionRecord(question_id="a", predicted_answers=rows("http://a")),
        PredictionRecord(question_id="b", predicted_answers=rows("http://a")),
        PredictionRecord(question_id="c", status=PredictionStatus.FAILED, error="boom"),
    ]
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    outcome = CliRunner().invoke(
        app, ["eval", "score", str(predictions), "--gold", str(tmp_path / "gold.jsonl"), "--json"]
    )
    assert outcome.exit_code == 0, outcome.output
    lines = [json.loads(line) for line in outcome.stdout.splitlines()]
    assert [line["index"] for line in lines] == [0, 1, 2]
    assert lines[0]["strict_f1"] == pytest.approx(2 / 3)
    assert lines[1]["not_scored"] == "gold_unavailable" and lines[2]["not_scored"] == "no_gold"


def test_cli_predictions_without_gold_is_a_configuration_error(tmp_path: Path) -> None:
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("", encoding="utf-8")
    outcome = CliRunner().invoke(app, ["eval", "score", str(predictions)])
    assert outcome.exit_code == 2
    assert "needs --gold" in outcome.output

"""``saga eval``: score predictions with every metric from one scorer."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from saga_kgqa.cli.output import fail, stdout
from saga_kgqa.errors import ConfigurationError, SagaError
from saga_kgqa.eval.gold import GoldStore
from saga_kgqa.eval.predictions import read_predictions
from saga_kgqa.eval.scorer import MEAN_METRICS, QuestionScores, score_question, summarise
from saga_kgqa.eval.spinach_output import read_spinach_output, score_entry


class PredictionFormat(StrEnum):
    """Formats ``saga eval score`` reads."""

    SPINACH_OUTPUT = "spinach-output"
    PREDICTIONS = "predictions"


eval_app = typer.Typer(help="Score benchmark predictions.", no_args_is_help=True)


def _write_line(data: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")


def _score_spinach_output(path: Path, as_json: bool) -> tuple[list[QuestionScores], list[str]]:
    scores = []
    for entry in read_spinach_output(path):
        question_scores = score_entry(entry)
        scores.append(question_scores)
        if as_json:
            _write_line(
                {"index": entry.index, "question": entry.question, "reported_f1": entry.reported_f1}
                | question_scores.to_dict()
            )
    return scores, []


def _score_predictions(path: Path, gold_path: Path | None, as_json: bool) -> tuple[list[QuestionScores], list[str]]:
    if gold_path is None:
        raise ConfigurationError("--format predictions needs --gold (a gold store written by the gold builder)")
    gold = GoldStore.load(gold_path)
    scores: list[QuestionScores] = []
    not_scored: list[str] = []
    for index, record in enumerate(read_predictions(path)):
        entry = gold.get(record.question_id)
        line: dict[str, Any] = {"index": index, "question_id": record.question_id, "status": record.status.value}
        if entry is None or not entry.usable:
            reason = "no_gold" if entry is None else entry.status.value
            not_scored.append(reason)
            line["not_scored"] = reason
        else:
            gold_result = entry.result()
            question_scores = score_question(
                record.predicted_result(), gold_result, gold_is_values=entry.answers_are_values
            )
            scores.append(question_scores)
            line |= question_scores.to_dict()
        if as_json:
            _write_line(line)
    return scores, not_scored


@eval_app.command("score")
def score(
    file: Annotated[Path, typer.Argument(help="The predictions file.")],
    file_format: Annotated[
        PredictionFormat, typer.Option("--format", help="spinach-output: SPINACH's released output JSON (.gz ok).")
    ] = PredictionFormat.PREDICTIONS,
    gold: Annotated[Path | None, typer.Option(help="Gold store (JSONL) for --format predictions.")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per question on stdout; the summary goes to stderr.")
    ] = False,
) -> None:
    """Score a predictions file with every metric (paper, strict, SPINACH, GRASP, GERBIL)."""
    try:
        if file_format is PredictionFormat.SPINACH_OUTPUT:
            scores, not_scored = _score_spinach_output(file, as_json)
        else:
            scores, not_scored = _score_predictions(file, gold, as_json)
    except SagaError as exc:
        fail(exc)
    summary = summarise(scores, not_scored)
    if as_json:
        sys.stderr.write(json.dumps({"summary": summary}) + "\n")
    else:
        _print_summary(summary)


def _print_summary(summary: dict[str, Any]) -> None:
    table = Table("metric", "mean")
    for metric in MEAN_METRICS:
        value = summary["means"][metric]
        table.add_row(metric, "n/a" if value is None else f"{value:.4f}")
    for key in ("gerbil_qald_macro_f1", "empty_result_rate"):
        value = summary[key]
        table.add_row(key, "n/a" if value is None else f"{value:.4f}")
    stdout.print(table)
    stdout.print(f"scored {summary['scored']}; not scored: {summary['not_scored'] or 'none'}", markup=False)


def register(app: typer.Typer) -> None:
    """Add ``saga eval`` to the ``saga`` application."""
    app.add_typer(eval_app, name="eval")

"""``saga eval``: score predictions with every metric from one scorer."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from saga_kgqa.app.open import open_graph
from saga_kgqa.cli.eval.ablate import ablate_command
from saga_kgqa.cli.eval.kit import kit_command
from saga_kgqa.cli.eval.merge import merge_command
from saga_kgqa.cli.eval.options import BenchmarkArgument, QuestionOptions
from saga_kgqa.cli.eval.run import run_command
from saga_kgqa.cli.groups import command_group
from saga_kgqa.cli.option_groups import with_option_groups
from saga_kgqa.cli.options import GraphOptions
from saga_kgqa.cli.output import fail, print_json, stdout
from saga_kgqa.cli.progress import tracked
from saga_kgqa.errors import ConfigurationError, SagaError

if TYPE_CHECKING:
    from saga_kgqa.eval.qa.gerbil import GerbilCounts
    from saga_kgqa.eval.qa.scorer import QuestionScores
    from saga_kgqa.kg.knowledge_graph import KnowledgeGraph


class Scorer(StrEnum):
    """What ``saga eval score`` prints."""

    ALL = "all"
    GERBIL = "gerbil"


class PredictionFormat(StrEnum):
    """Formats ``saga eval score`` reads."""

    SPINACH_OUTPUT = "spinach-output"
    PREDICTIONS = "predictions"


eval_app = command_group("Score, run and ablate benchmarks.")


def _write_line(data: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")


Scored = tuple[list["QuestionScores"], list[str], list["GerbilCounts"]]


def _score_spinach_output(path: Path, as_json: bool) -> Scored:
    from saga_kgqa.eval.qa.spinach_output import read_spinach_output, score_entry

    scores = []
    for entry in read_spinach_output(path):
        question_scores = score_entry(entry)
        scores.append(question_scores)
        if as_json:
            _write_line(
                {"index": entry.index, "question": entry.question, "reported_f1": entry.reported_f1}
                | question_scores.to_dict()
            )
    return scores, [], []


def _score_predictions(path: Path, gold_path: Path | None, as_json: bool) -> Scored:
    from saga_kgqa.eval.qa.ablation import score_run
    from saga_kgqa.eval.qa.gold import GoldStore
    from saga_kgqa.eval.qa.kit import is_kit, read_kit
    from saga_kgqa.runs.predictions import read_predictions

    if is_kit(path):
        if gold_path is not None:
            raise ConfigurationError("a kit carries its own gold: drop --gold")
        kit = read_kit(path)
        scored = score_run(kit.records, kit.gold)
    elif gold_path is None:
        raise ConfigurationError("--format predictions needs --gold (a gold store written by `saga eval gold`)")
    else:
        scored = score_run(read_predictions(path), GoldStore.load(gold_path))
    if as_json:
        for item in scored:
            line: dict[str, Any] = {
                "index": item.index,
                "question_id": item.record.question_id,
                "status": item.record.status.value,
            }
            line |= {"not_scored": item.not_scored} if item.scores is None else item.scores.to_dict()
            _write_line(line)
    return (
        [s.scores for s in scored if s.scores is not None],
        [s.not_scored for s in scored if s.not_scored],
        [s.gerbil for s in scored if s.gerbil is not None],
    )


@eval_app.command("score")
def score(
    file: Annotated[Path, typer.Argument(help="The predictions file, or a kit from `saga eval kit` (offline).")],
    file_format: Annotated[
        PredictionFormat, typer.Option("--format", help="spinach-output: SPINACH's released output JSON (.gz ok).")
    ] = PredictionFormat.PREDICTIONS,
    gold: Annotated[Path | None, typer.Option(help="Gold store (JSONL) for --format predictions.")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per question on stdout; the summary goes to stderr.")
    ] = False,
    scorer: Annotated[
        Scorer, typer.Option(help="all: every metric; gerbil: GERBIL QA's seven measures as the QALD leaderboard.")
    ] = Scorer.ALL,
) -> None:
    """Score a predictions file with every metric (paper, strict, SPINACH, GRASP, GERBIL)."""
    from saga_kgqa.eval.qa.scorer import summarise

    try:
        if file_format is PredictionFormat.SPINACH_OUTPUT:
            scores, not_scored, gerbil_extra = _score_spinach_output(file, as_json)
        else:
            scores, not_scored, gerbil_extra = _score_predictions(file, gold, as_json)
    except SagaError as exc:
        fail(exc)
    summary = summarise(scores, not_scored, gerbil_extra)
    if as_json:
        sys.stderr.write(json.dumps({"summary": summary}) + "\n")
    elif scorer is Scorer.GERBIL:
        _print_gerbil(summary)
    else:
        _print_summary(summary)


def _print_gerbil(summary: dict[str, Any]) -> None:
    """GERBIL's measures by GERBIL's names, in percent as the QALD leaderboard shows them."""
    from rich.table import Table

    from saga_kgqa.eval.qa.gerbil import MEASURE_NAMES

    measures = summary["gerbil"]
    table = Table("measure", "value (%)", "value")
    for name in MEASURE_NAMES:
        value = None if measures is None else measures[name]
        table.add_row(
            name, "n/a" if value is None else f"{100 * value:.2f}", "n/a" if value is None else f"{value:.4f}"
        )
    stdout.print(table)
    counted = summary["gerbil_questions"]
    left_out = summary["scored"] + sum(summary["not_scored"].values()) - counted
    stdout.print(
        f"GERBIL counts {counted} questions (empty gold included); "
        f"{left_out} left out (gold drifted, unavailable or missing)",
        markup=False,
    )


def _print_summary(summary: dict[str, Any]) -> None:
    from rich.table import Table

    from saga_kgqa.eval.qa.scorer import MEAN_METRICS

    table = Table("metric", "mean")
    for metric in MEAN_METRICS:
        value = summary["means"][metric]
        table.add_row(metric, "n/a" if value is None else f"{value:.4f}")
    for key in ("gerbil_qald_macro_f1", "empty_result_rate"):
        value = summary[key]
        table.add_row(key, "n/a" if value is None else f"{value:.4f}")
    stdout.print(table)
    stdout.print(f"scored {summary['scored']}; not scored: {summary['not_scored'] or 'none'}", markup=False)


def _optional_graph(graph: GraphOptions) -> KnowledgeGraph | None:
    return open_graph(graph.data, graph.endpoint, graph.profile) if graph.data or graph.endpoint else None


@eval_app.command("gold")
@with_option_groups
def gold_command(
    benchmark: BenchmarkArgument,
    out: Annotated[Path, typer.Option("--out", "-o", help="Gold store file to write (JSONL).")],
    *,
    chosen: QuestionOptions,
    graph: GraphOptions,
) -> None:
    """Freeze a benchmark's gold: shipped answers, else the gold SPARQL run on --data or --endpoint."""
    from saga_kgqa.eval.qa.gold import build_gold_store

    try:
        questions = chosen.questions(benchmark)
        kg = _optional_graph(graph)
        try:
            store = build_gold_store(tracked(questions, f"{benchmark}: gold", len(questions)), kg)
        finally:
            if kg is not None:
                kg.close()
        store.save(out)
    except SagaError as exc:
        fail(exc)
    problems = [
        {"question_id": r.question_id, "status": r.status.value, "reason": r.error or r.note}
        for r in store
        if not r.usable
    ]
    print_json(
        {"gold_store": str(out), "questions": len(store), "status": store.status_counts(), "not_usable": problems}
    )


@eval_app.command("drift")
@with_option_groups
def drift_command(
    benchmark: BenchmarkArgument,
    gold: Annotated[Path, typer.Option(help="Gold store written by `saga eval gold`, or a kit from `saga eval kit`.")],
    *,
    chosen: QuestionOptions,
    graph: GraphOptions,
) -> None:
    """Re-run the gold queries on --data or --endpoint and report what changed since the gold was frozen."""
    from saga_kgqa.eval.qa.gold import GoldStore, drift_report
    from saga_kgqa.eval.qa.kit import is_kit, read_kit

    try:
        questions = chosen.questions(benchmark)
        store = read_kit(gold).gold if is_kit(gold) else GoldStore.load(gold)
        kg = _optional_graph(graph)
        if kg is None:
            raise ConfigurationError("drift needs a graph: give --data or --endpoint")
        with kg:
            report = drift_report(store, questions, kg)
    except SagaError as exc:
        fail(exc)
    print_json(
        {
            "endpoint_id": report.endpoint_id,
            "run_at": report.run_at.isoformat(),
            "counts": report.counts(),
            "entries": [
                {
                    "question_id": e.question_id,
                    "outcome": e.outcome,
                    "gold_made_at": e.gold_made_at.isoformat() if e.gold_made_at else "dataset",
                    "missing": e.missing,
                    "extra": e.extra,
                    "missing_answers": list(e.missing_answers),
                    "extra_answers": list(e.extra_answers),
                }
                | ({"error": e.error} if e.error else {})
                for e in report.entries
                if e.outcome != "same"
            ],
        }
    )


@eval_app.command("report")
def report_command(
    runs: Annotated[
        list[str], typer.Option("--run", help="SYSTEM,BENCHMARK,PREDICTIONS,GOLD (repeatable).", show_default=False)
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for report.md and the PNG plots.")],
) -> None:
    """Write markdown tables shaped like the paper's (F1/EM, empty-result rates, cost) and PNG plots."""
    from saga_kgqa.eval.qa.report import RunSpec, report_markdown, score_runs, write_plots

    try:
        summaries = score_runs([RunSpec.parse(text) for text in runs])
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.md").write_text(report_markdown(summaries), encoding="utf-8")
        plots = write_plots(summaries, out)
    except SagaError as exc:
        fail(exc)
    print_json({"report": str(out / "report.md"), "plots": [str(p) for p in plots]})


def register(app: typer.Typer) -> None:
    """Add ``saga eval`` (score, gold, drift, run, ablate) to the ``saga`` application."""
    eval_app.command("run")(run_command)
    eval_app.command("ablate")(ablate_command)
    eval_app.command("merge")(merge_command)
    eval_app.command("kit")(kit_command)
    app.add_typer(eval_app, name="eval")

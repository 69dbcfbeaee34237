"""Reports over scored runs: markdown tables shaped like the paper's, and PNG plots.

Each run is one system on one benchmark (a predictions file scored against a gold
store). :func:`report_markdown` writes the F1/EM table (the paper's Tables 1 and 2: one
row per system, an F1 and an EM column per benchmark), the other metrics side by side,
the empty-result rates (Table 4: final answers and executed queries), and the cost per
question (actions, LLM calls, tokens, latency). :func:`write_plots` draws F1 per benchmark
and system, empty-result rates, and the action histogram.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyparsing import ParserElement

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.eval.qa.ablation import run_summary, score_run
from saga_kgqa.eval.qa.gold import GoldStore
from saga_kgqa.runs.predictions import read_predictions

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Summaries = Mapping[tuple[str, str], Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class RunSpec:
    """One system's predictions on one benchmark, with the gold to score them."""

    system: str
    benchmark: str
    predictions: Path
    gold: Path

    @classmethod
    def parse(cls, text: str) -> RunSpec:
        """Read ``SYSTEM,BENCHMARK,PREDICTIONS,GOLD``.

        Raises:
            ConfigurationError: Not four comma-separated fields.
        """
        parts = [part.strip() for part in text.split(",")]
        if len(parts) != 4 or not all(parts):
            raise ConfigurationError(f"expected SYSTEM,BENCHMARK,PREDICTIONS,GOLD, got {text!r}")
        return cls(parts[0], parts[1], Path(parts[2]), Path(parts[3]))


def score_runs(specs: Sequence[RunSpec]) -> dict[tuple[str, str], dict[str, Any]]:
    """Score every run; keyed by (system, benchmark).

    Raises:
        ConfigurationError: A file is missing or malformed, or a (system, benchmark) pair repeats.
    """
    summaries: dict[tuple[str, str], dict[str, Any]] = {}
    for spec in specs:
        key = (spec.system, spec.benchmark)
        if key in summaries:
            raise ConfigurationError(f"run {spec.system} on {spec.benchmark} given twice")
        summaries[key] = run_summary(score_run(read_predictions(spec.predictions), GoldStore.load(spec.gold)))
    return summaries


def _axes(summaries: Summaries) -> tuple[list[str], list[str]]:
    systems = list(dict.fromkeys(system for system, _ in summaries))
    benchmarks = list(dict.fromkeys(benchmark for _, benchmark in summaries))
    return systems, benchmarks


def _percent(value: Any) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}"


def _metric_table(summaries: Summaries, pairs: Sequence[tuple[str, str]]) -> list[str]:
    systems, benchmarks = _axes(summaries)
    header = ["Method"] + [f"{benchmark} {label}" for benchmark in benchmarks for label, _ in pairs]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for system in systems:
        cells = [system]
        for benchmark in benchmarks:
            summary = summaries.get((system, benchmark))
            for _, metric in pairs:
                cells.append("" if summary is None else _percent(summary["means"].get(metric)))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _rate_table(summaries: Summaries) -> list[str]:
    systems, benchmarks = _axes(summaries)
    lines = ["| Method | " + " | ".join(f"{b} final / queries" for b in benchmarks) + " |"]
    lines.append("|" + "---|" * (len(benchmarks) + 1))
    for system in systems:
        cells = [system]
        for benchmark in benchmarks:
            summary = summaries.get((system, benchmark))
            if summary is None:
                cells.append("")
                continue
            query_rate = summary["traces"]["query_empty_rate"]
            cells.append(f"{_percent(summary['empty_result_rate'])} / {_percent(query_rate)}")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _cost_table(summaries: Summaries) -> list[str]:
    lines = [
        "| Method | Benchmark | scored | not scored | actions/q | LLM calls/q | tokens/q | latency mean s | p95 s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (system, benchmark), summary in summaries.items():
        mean = summary["traces"]["mean_per_question"]
        tokens = mean["prompt_tokens"] + mean["completion_tokens"]
        latency = summary["traces"]["latency_s"]
        not_scored = ", ".join(f"{k} {v}" for k, v in summary["not_scored"].items()) or "0"
        lines.append(
            f"| {system} | {benchmark} | {summary['scored']} | {not_scored} | {mean['actions']:.2f} | "
            f"{mean['llm_calls']:.2f} | {tokens:.0f} | {latency['mean']:.2f} | {latency['p95']:.2f} |"
        )
    return lines


def report_markdown(summaries: Summaries) -> str:
    """The report's markdown text."""
    sections = [
        "# Evaluation report",
        "",
        "## F1 / EM (%) -- the paper's metric over answer values (Tables 1-2)",
        *_metric_table(summaries, [("F1", "paper_f1"), ("EM", "paper_em")]),
        "",
        "## Other metrics (%): strict set F1 (raw, canonical), SPINACH row F1, GRASP F1, GERBIL macro F1",
        *_metric_table(
            summaries,
            [
                ("strict", "strict_f1"),
                ("canonical", "strict_f1_canonical"),
                ("SPINACH", "spinach_row_f1"),
                ("GRASP", "grasp_f1"),
                ("GERBIL", "gerbil_f1"),
            ],
        ),
        "",
        "## Empty-result rate (%) -- final answers / executed queries (Table 4)",
        *_rate_table(summaries),
        "",
        "## Cost per question",
        *_cost_table(summaries),
        "",
    ]
    return "\n".join(sections)


def _figure_class() -> type[Figure]:
    """Matplotlib's ``Figure``, imported without leaving pyparsing's packrat cache switched on.

    Importing matplotlib turns on pyparsing's process-wide packrat memoisation (its
    mathtext parser does so at import). The query guard parses SPARQL with pyparsing, and
    with packrat on every nesting level costs more stack, so realistic queries would be
    rejected as too deeply nested after a report was drawn in the same process. The
    import is therefore lazy and the setting is restored right after it.
    """
    packrat_was_on = ParserElement._packratEnabled
    # The object API draws straight to files with the Agg canvas: no pyplot state, no display.
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ConfigurationError(f"plots need matplotlib: pip install 'saga-kgqa[eval]' ({exc})") from exc

    if not packrat_was_on:
        ParserElement.disable_memoization()
    return Figure


def write_plots(summaries: Summaries, out_dir: Path) -> list[Path]:
    """Draw F1 per benchmark and system, empty-result rates, and actions per tool; return the PNG paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    figure_class = _figure_class()
    systems, benchmarks = _axes(summaries)
    f1 = _bars(
        figure_class, summaries, systems, benchmarks, lambda s: s["means"].get("paper_f1"), "F1 (%)", out_dir / "f1.png"
    )
    rates = out_dir / "empty_results.png"
    empty = _bars(
        figure_class, summaries, systems, benchmarks, lambda s: s["empty_result_rate"], "Empty-result rate (%)", rates
    )
    figure = figure_class(figsize=(8, 4))
    axes = figure.subplots()
    tools = sorted({tool for s in summaries.values() for tool in s["traces"]["actions_per_tool"]})
    width = 0.8 / max(1, len(summaries))
    for offset, ((system, benchmark), summary) in enumerate(summaries.items()):
        counts = [summary["traces"]["actions_per_tool"].get(tool, 0) for tool in tools]
        axes.bar([i + offset * width for i in range(len(tools))], counts, width, label=f"{system} / {benchmark}")
    axes.set_xticks([i + 0.4 - width / 2 for i in range(len(tools))], tools)
    axes.set_ylabel("actions")
    axes.legend(fontsize="small")
    figure.tight_layout()
    actions = out_dir / "actions.png"
    figure.savefig(actions, dpi=120)
    return [f1, empty, actions]


def _bars(
    figure_class: type[Figure],
    summaries: Summaries,
    systems: list[str],
    benchmarks: list[str],
    value: Any,
    label: str,
    path: Path,
) -> Path:
    figure = figure_class(figsize=(8, 4))
    axes = figure.subplots()
    width = 0.8 / max(1, len(systems))
    for offset, system in enumerate(systems):
        heights = []
        for benchmark in benchmarks:
            summary = summaries.get((system, benchmark))
            number = value(summary) if summary is not None else None
            heights.append(0.0 if number is None else 100 * number)
        axes.bar([i + offset * width for i in range(len(benchmarks))], heights, width, label=system)
    axes.set_xticks([i + 0.4 - width / 2 for i in range(len(benchmarks))], benchmarks)
    axes.set_ylabel(label)
    axes.set_ylim(0, 100)
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    return path

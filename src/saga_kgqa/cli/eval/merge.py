"""``saga eval merge``: the shard files of a sharded ``saga eval run`` into one run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from saga_kgqa.cli.eval.options import DataDirOption, benchmark_questions
from saga_kgqa.cli.output import fail, print_json
from saga_kgqa.errors import SagaError


def merge_command(
    shards: Annotated[list[Path], typer.Argument(help="The shards' predictions files (from --shard I/N).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Merged predictions file (must not exist).")],
    gold: Annotated[Path | None, typer.Option(help="Gold store: score the merged run.")] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Merge the N shards of one run into the predictions file (and report) a single run gives."""
    from saga_kgqa.eval.qa.ablation import run_summary, score_run
    from saga_kgqa.eval.qa.gold import GoldStore
    from saga_kgqa.eval.qa.shards import merge_shards, read_shard_config

    try:
        if not shards:
            raise typer.BadParameter("give the shard files")
        config = read_shard_config(shards[0])
        questions = benchmark_questions(config["benchmark"], data_dir, config["language"], config["graph"])
        questions = questions[: config["limit"]]
        records = merge_shards(shards, questions, out)
        report: dict[str, Any] = {"predictions": str(out), "answered": len(records), "shards": len(shards)}
        if gold is not None:
            report["summary"] = run_summary(score_run(records, GoldStore.load(gold)))
    except SagaError as exc:
        fail(exc)
    print_json(report)

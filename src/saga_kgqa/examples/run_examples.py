"""Examples for an evaluation run: loaded, screened by the leakage guard, and checked again before scoring."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.examples.harvest import harvest_files
from saga_kgqa.examples.leakage import LeakageGuard
from saga_kgqa.examples.model import QueryExample, read_examples, write_examples

#: Refusal reasons kept in the run's configuration.
REASONS_KEPT = 5


def load_examples(path: Path) -> list[QueryExample]:
    """Examples from a JSONL file (``saga examples``' format) or harvested from an RDF file.

    Raises:
        ConfigurationError: The file cannot be read.
    """
    return read_examples(path) if path.suffix in (".jsonl", ".json") else harvest_files([path])


def prepare_run_examples(
    source: Path, questions: Sequence[BenchmarkQuestion], out: Path
) -> tuple[Path | None, dict[str, Any]]:
    """Screen a run's examples against its benchmark and write the kept ones beside its predictions.

    Returns:
        The kept examples' file (``None`` when none is left) and what to record in the run's
        configuration: the source file, how many were kept and refused, and why (the first few).
    """
    report = LeakageGuard(questions).screen(load_examples(source))
    info: dict[str, Any] = {
        "source": str(source),
        "kept": len(report.kept),
        "refused": len(report.refused),
        "refused_because": [why for _example, why in report.refused[:REASONS_KEPT]],
    }
    if not report.kept:
        return None, info
    kept = out.with_name(out.name + ".examples.jsonl")
    write_examples(report.kept, kept)
    info["file"] = str(kept)
    return kept, info


def verify_run_examples(config: Mapping[str, Any], questions: Sequence[BenchmarkQuestion]) -> None:
    """The check made when a run is scored: the examples it used are still none of the benchmark's.

    Raises:
        ExampleLeakage: The run's examples file holds a benchmark question or query.
        ConfigurationError: The file the configuration names cannot be read.
    """
    examples = config.get("examples")
    if isinstance(examples, Mapping) and isinstance(examples.get("file"), str):
        LeakageGuard(questions).require_clean(read_examples(Path(examples["file"])))

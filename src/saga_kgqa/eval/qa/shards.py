"""Sharded runs: answer a deterministic 1/N of a benchmark per process, then merge the shards.

``saga eval run … --shard I/N`` answers the questions whose id hashes to shard I (of N),
so N processes on N machines split a benchmark without talking to each other, and a
shard rerun resumes like any run. ``saga eval merge`` checks that the shard files are
the N shards of one configuration, each question answered exactly once, and writes
the records in benchmark order with the configuration a single run would have saved:
the merged file is what one process would have written (timings aside) and resumes as
one.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.runs.batch import config_path, read_run
from saga_kgqa.runs.predictions import PredictionRecord

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
SHARD_KEY = "shard"


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, question_id: str) -> bool:
        """Whether this shard answers ``question_id`` (a stable hash, not the position: order-proof)."""
        digest = hashlib.sha256(question_id.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1


def parse_shard(text: str) -> Shard:
    """Read ``I/N`` (1 ≤ I ≤ N).

    Raises:
        ConfigurationError: Not of that form.
    """
    match = _SHARD.match(text)
    if match is None or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise ConfigurationError(f"--shard must be I/N with 1 <= I <= N (for example 2/4), got {text!r}")
    return Shard(int(match.group(1)), int(match.group(2)))


def shard_questions(questions: Sequence[BenchmarkQuestion], shard: Shard | None) -> list[BenchmarkQuestion]:
    """The questions ``shard`` answers, in benchmark order (all of them without a shard)."""
    return list(questions) if shard is None else [q for q in questions if shard.owns(q.id)]


def read_shard_config(predictions: Path) -> dict[str, Any]:
    """The configuration a shard's run saved beside its predictions.

    Raises:
        ConfigurationError: Missing, unreadable, or not a shard's.
    """
    path = config_path(predictions)
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f"cannot read the run configuration {path}: {exc}") from exc
    if not isinstance(config, dict) or not isinstance(config.get(SHARD_KEY), str):
        raise ConfigurationError(f"{predictions} is not a shard of a run (its configuration has no shard)")
    return config


def merge_shards(
    shard_files: Sequence[Path], questions: Sequence[BenchmarkQuestion], out: Path
) -> list[PredictionRecord]:
    """Merge the N shard files of one run into ``out`` (and its configuration file).

    Args:
        shard_files: The shards' predictions files, any order.
        questions: The benchmark's questions, in order (as the shards' configuration names them).
        out: The merged predictions file; must not exist yet.

    Returns:
        The merged records, in benchmark order.

    Raises:
        ConfigurationError: The files are not exactly the shards 1..N of one configuration,
            a question is missing or answered by a shard that does not own it, or ``out`` exists.
    """
    if out.exists() or config_path(out).exists():
        raise ConfigurationError(f"{out} exists; merge into a new file")
    configs = [read_shard_config(path) for path in shard_files]
    shards = [parse_shard(config[SHARD_KEY]) for config in configs]
    base = {key: value for key, value in configs[0].items() if key != SHARD_KEY}
    for path, config in zip(shard_files, configs, strict=True):
        if {key: value for key, value in config.items() if key != SHARD_KEY} != base:
            raise ConfigurationError(f"{path} belongs to another run configuration than {shard_files[0]}")
    count = shards[0].count
    if sorted(shard.index for shard in shards) != list(range(1, count + 1)) or any(s.count != count for s in shards):
        given = ", ".join(str(shard) for shard in shards)
        raise ConfigurationError(f"need exactly the shards 1/{count} … {count}/{count}, got {given}")
    by_id: dict[str, PredictionRecord] = {}
    for path, shard in zip(shard_files, shards, strict=True):
        for question_id, record in read_run(path).items():
            if not shard.owns(question_id):
                raise ConfigurationError(f"{path} answers {question_id!r}, which shard {shard} does not own")
            by_id[question_id] = record
    missing = [q.id for q in questions if q.id not in by_id]
    if missing:
        raise ConfigurationError(
            f"{len(missing)} questions have no record (first: {missing[0]!r}); finish the shards first"
        )
    merged = [by_id[q.id] for q in questions]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(record.model_dump_json() + "\n" for record in merged), encoding="utf-8")
    config_path(out).write_text(json.dumps(base, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return merged

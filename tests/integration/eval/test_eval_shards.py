"""Sharded `saga eval run --shard I/N` and `saga eval merge`: identical to a single run (gold replay on CK25)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.eval.qa.shards import Shard, parse_shard
from saga_kgqa.runs.batch import config_path, read_run

pytestmark = pytest.mark.shared_data


def _timeless(path: Path) -> list[dict[str, Any]]:
    """The records in file order, wall-clock fields dropped (they differ between any two runs)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row.get("trace", {}).pop("latency_s", None)
    return rows


def _invoke(args: list[str]) -> dict[str, Any]:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


def test_three_shards_merge_into_the_single_run(data_dir: Path, tmp_path: Path) -> None:
    graph_file = str(data_dir / "text2sparql_ck25" / "prod-inst.ttl")
    common = ["--data-dir", str(data_dir), "--data", graph_file, "--answerer", "gold-replay", "--limit", "30"]
    gold = tmp_path / "gold.jsonl"
    _invoke(["eval", "gold", "ck25", "--out", str(gold), "--data-dir", str(data_dir), "--data", graph_file])
    single = tmp_path / "single.jsonl"
    single_report = _invoke(["eval", "run", "ck25", "--out", str(single), "--gold", str(gold), *common])

    shard_files = [tmp_path / f"shard{i}.jsonl" for i in (1, 2, 3)]
    answered = []
    for index, path in enumerate(shard_files, start=1):
        report = _invoke(["eval", "run", "ck25", "--out", str(path), "--shard", f"{index}/3", *common])
        answered.append(report["answered"])
    assert sum(answered) == 30 and all(0 < n < 30 for n in answered)  # a real split, every question once

    merged = tmp_path / "merged.jsonl"
    merged_report = _invoke(
        ["eval", "merge", *map(str, reversed(shard_files)), "--out", str(merged), "--gold", str(gold)]
    )
    assert _timeless(merged) == _timeless(single)
    assert json.loads(config_path(merged).read_text()) == json.loads(config_path(single).read_text())
    assert merged_report["summary"]["means"] == single_report["summary"]["means"]
    # The merged file is a finished run of the whole configuration: rerunning it answers nothing.
    assert _invoke(["eval", "run", "ck25", "--out", str(merged), *common])["answered"] == 0
    assert len(read_run(merged)) == 30


def test_merge_refuses_incomplete_or_foreign_shards(data_dir: Path, tmp_path: Path) -> None:
    graph_file = str(data_dir / "text2sparql_ck25" / "prod-inst.ttl")
    common = ["--data-dir", str(data_dir), "--data", graph_file, "--answerer", "gold-replay"]
    one = tmp_path / "a1.jsonl"
    two = tmp_path / "a2.jsonl"
    _invoke(["eval", "run", "ck25", "--out", str(one), "--shard", "1/2", "--limit", "10", *common])
    _invoke(["eval", "run", "ck25", "--out", str(two), "--shard", "2/2", "--limit", "12", *common])
    missing = CliRunner().invoke(app, ["eval", "merge", str(one), "--out", str(tmp_path / "m.jsonl")])
    assert missing.exit_code == 2 and "shards 1/2" in missing.output
    foreign = CliRunner().invoke(app, ["eval", "merge", str(one), str(two), "--out", str(tmp_path / "m.jsonl")])
    assert foreign.exit_code == 2 and "another run configuration" in foreign.output


def test_shard_syntax_and_ownership() -> None:
    assert parse_shard("2/4") == Shard(2, 4)
    for bad in ("0/4", "5/4", "2", "a/b"):
        with pytest.raises(ConfigurationError):
            parse_shard(bad)
    ids = [f"q{i}" for i in range(200)]
    owners = [[s for s in range(1, 5) if Shard(s, 4).owns(i)] for i in ids]
    assert all(len(found) == 1 for found in owners)
    assert {found[0] for found in owners} == {1, 2, 3, 4}

"""`saga eval ablate` end to end: every variant runs, and each coverage level masks a different schema.

The model is the gold-replay factory (``tests/support/replay_models.py``) behind
``SAGA_MODEL_FACTORY``, so the command builds its models exactly as it does for a real server.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from saga_kgqa.benchmarks.loaders import load_benchmark
from saga_kgqa.cli import app
from saga_kgqa.runs.batch import config_path
from tests.support.replay_models import GOLD_ENV

pytestmark = pytest.mark.shared_data

LIMIT = 3


@pytest.fixture
def replay_env(data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    questions = list(load_benchmark("ck25", data_dir).questions)[:LIMIT]
    gold_map = tmp_path / "gold-map.json"
    gold_map.write_text(json.dumps({q.question: q.gold_sparql for q in questions}))
    monkeypatch.setenv("SAGA_MODEL_FACTORY", "tests.support.replay_models:gold_replay_factory")
    monkeypatch.setenv(GOLD_ENV, str(gold_map))
    return gold_map


def _gold(data_dir: Path, tmp_path: Path, graph: Path) -> Path:
    gold = tmp_path / "gold.jsonl"
    made = CliRunner().invoke(
        app, ["eval", "gold", "ck25", "--out", str(gold), "--data-dir", str(data_dir), "--data", str(graph)]
    )
    assert made.exit_code == 0, made.output
    return gold


def test_ablate_coverage_levels_each_mask_their_share(data_dir: Path, tmp_path: Path, replay_env: Path) -> None:
    graph = data_dir / "text2sparql_ck25" / "prod-inst.ttl"
    gold = _gold(data_dir, tmp_path, graph)
    out_dir = tmp_path / "ablate"
    outcome = CliRunner().invoke(
        app,
        [
            "eval", "ablate", "ck25", "--gold", str(gold), "--out-dir", str(out_dir), "--coverage",
            "--no-components", "--limit", str(LIMIT), "--data-dir", str(data_dir),
            "--data", str(graph), "--max-steps", "4", "--answer-shape",
        ],
    )  # fmt: skip
    assert outcome.exit_code == 0, outcome.output
    rows = {line.split("|")[1].strip(): line for line in outcome.stdout.splitlines() if line.startswith("| coverage=")}
    assert set(rows) == {"coverage=0", "coverage=0.25", "coverage=0.5", "coverage=0.75", "coverage=1"}
    kept = {}
    for name, line in rows.items():
        found = re.search(r"(\d+) of (\d+) declared domains kept", line)
        assert found is not None, line
        kept[name] = (int(found.group(1)), int(found.group(2)))
    total = kept["coverage=1"][1]
    assert total > 0
    assert [kept[f"coverage={level}"][0] for level in ("0", "0.25", "0.5", "0.75", "1")] == [
        round(level * total) for level in (0.0, 0.25, 0.5, 0.75, 1.0)
    ]
    for name in rows:
        saved = json.loads(config_path(out_dir / f"{name}.jsonl").read_text(encoding="utf-8"))
        assert saved["context"]["schema_coverage"] == float(name.partition("=")[2])
        assert saved["context"]["answer_shape"] is True  # every variant runs with the shape rule asked for
        assert saved["context"]["clarify"] == "never"  # a benchmark never stops to ask back (issue 37)
        assert "| 100.00 | 100.00 |" in rows[name]  # gold replay answers every question under every mask


def test_ablate_coverage_refuses_a_schema_with_nothing_to_mask(
    data_dir: Path, tmp_path: Path, replay_env: Path
) -> None:
    # A graph without any ontology: its index is induced only, so no coverage level can mask anything.
    gold = _gold(data_dir, tmp_path, data_dir / "text2sparql_ck25" / "prod-inst.ttl")
    graph = tmp_path / "plain.ttl"
    graph.write_text(
        "@prefix ex: <http://example.org/> .\n"
        + "".join(f"ex:p{i} a ex:Person ; ex:knows ex:p{i + 1} ; ex:name 'P{i}' .\n" for i in range(30))
    )
    out_dir = tmp_path / "ablate"
    outcome = CliRunner().invoke(
        app,
        [
            "eval", "ablate", "ck25", "--gold", str(gold), "--out-dir", str(out_dir), "--coverage",
            "--no-components", "--limit", str(LIMIT), "--data-dir", str(data_dir), "--data", str(graph),
        ],
    )  # fmt: skip
    assert outcome.exit_code == 2, outcome.output
    assert "has nothing to mask" in outcome.output
    assert not list(out_dir.glob("*.jsonl"))  # refused before any variant ran


def test_offline_wikidata_index_masks_its_curated_domains(data_dir: Path) -> None:
    from saga_kgqa.app.open import dialect_schema

    index = dialect_schema("wikidata", data_dir=data_dir)
    masked = index.with_coverage(0.0, seed=0)
    assert masked.coverage is not None and masked.coverage.total > 100
    assert masked.coverage.by_source.get("curated", 0) > 100
    assert not any(p.domain_source == "curated" for p in masked.properties.values())

"""CK25 end to end through the CLI: manifest, kit scored offline, and drift against a changed graph.

No model: the gold-replay answerer runs each gold query (``saga eval run --answerer gold-replay``).
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pyoxigraph
import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app
from saga_kgqa.eval.qa.gold import GoldStore

pytestmark = pytest.mark.shared_data


def _invoke(*args: str) -> Any:
    outcome = CliRunner().invoke(app, list(args))
    assert outcome.exit_code == 0, outcome.output
    return outcome


def _summary(outcome: Any) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads(outcome.stderr.strip().splitlines()[-1])["summary"]
    return summary


@pytest.fixture(scope="module")
def ck25_run(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("ck25_kit")
    graph = data_dir / "text2sparql_ck25" / "prod-inst.ttl"
    gold, predictions = folder / "gold.jsonl", folder / "replay.jsonl"
    common = ["--data-dir", str(data_dir), "--data", str(graph)]
    _invoke("eval", "gold", "ck25", *common, "--out", str(gold))
    _invoke("eval", "run", "ck25", "--answerer", "gold-replay", *common, "--out", str(predictions), "--gold", str(gold))
    return {"gold": gold, "predictions": predictions, "graph": graph, "data_dir": data_dir, "folder": folder}


def test_run_writes_a_manifest_of_what_produced_its_predictions(ck25_run: dict[str, Path]) -> None:
    predictions = ck25_run["predictions"]
    manifest = json.loads(predictions.with_name(predictions.name + ".manifest.json").read_text(encoding="utf-8"))
    questions = ck25_run["data_dir"] / "text2sparql_ck25" / "questions.yml"
    assert (
        manifest["dataset"]["files"]["text2sparql_ck25/questions.yml"]
        == hashlib.sha256(questions.read_bytes()).hexdigest()
    )
    assert manifest["graph_files"]["prod-inst.ttl"] == hashlib.sha256(ck25_run["graph"].read_bytes()).hexdigest()
    gold = manifest["gold"]
    assert gold["sha256"] == hashlib.sha256(ck25_run["gold"].read_bytes()).hexdigest()
    assert gold["sources"] == {"computed": 50} and gold["computed_from"] is not None and len(gold["endpoints"]) == 1
    assert manifest["model"] is None  # gold replay: no model ran
    assert "controller.md" in manifest["prompts"] and manifest["packages"]["pyoxigraph"]
    assert manifest["configuration"]["answerer"] == "gold-replay"
    assert manifest["predictions"]["sha256"] == hashlib.sha256(predictions.read_bytes()).hexdigest()
    assert manifest["predictions"]["records"] == 50


def test_a_kit_scores_offline_to_the_same_figures(ck25_run: dict[str, Path]) -> None:
    kit = ck25_run["folder"] / "ck25.kit.tar.gz"
    _invoke("eval", "kit", str(ck25_run["predictions"]), "--gold", str(ck25_run["gold"]), "--out", str(kit))
    with tarfile.open(kit) as archive:
        assert sorted(archive.getnames()) == ["gold.jsonl", "kit.json", "manifest.json", "predictions.jsonl"]
    direct = _summary(_invoke("eval", "score", str(ck25_run["predictions"]), "--gold", str(ck25_run["gold"]), "--json"))
    # The kit alone: no gold file, no graph, no data directory.
    offline = _summary(_invoke("eval", "score", str(kit), "--json"))
    assert offline == direct
    assert offline["scored"] == 44 and offline["means"]["strict_em"] == 1.0
    assert offline["gerbil"]["Macro F1 QALD"] == 1.0


def test_a_kit_changed_after_packing_is_refused(ck25_run: dict[str, Path], tmp_path: Path) -> None:
    kit = tmp_path / "kit.tar.gz"
    _invoke("eval", "kit", str(ck25_run["predictions"]), "--gold", str(ck25_run["gold"]), "--out", str(kit))
    tampered = tmp_path / "tampered.tar.gz"
    with tarfile.open(kit) as source, tarfile.open(tampered, "w:gz") as target:
        for member in source.getmembers():
            data = source.extractfile(member)
            assert data is not None
            blob = data.read()
            if member.name == "gold.jsonl":
                blob = blob.replace(b'"ok"', b'"drift"', 1)
                member.size = len(blob)
            target.addfile(member, io.BytesIO(blob))
    outcome = CliRunner().invoke(app, ["eval", "score", str(tampered)])
    assert outcome.exit_code == 2 and "gold.jsonl does not match its hash" in outcome.output


def test_drift_lists_the_answers_that_changed_since_the_gold_was_made(
    ck25_run: dict[str, Path], tmp_path: Path
) -> None:
    # Take one computed gold answer (an IRI) out of the graph: its question must drift, naming it.
    store = GoldStore.load(ck25_run["gold"])
    target_id, target = next(
        (record.question_id, term.value)
        for record in store
        if record.usable
        for row in record.result().rows
        for term in row.values()
        if term.kind == "uri"
    )
    changed_graph = tmp_path / "changed.nt"
    graph = pyoxigraph.Store()
    graph.bulk_load(path=str(ck25_run["graph"]), format=pyoxigraph.RdfFormat.TURTLE)
    gone = pyoxigraph.NamedNode(target)
    for quad in list(graph.quads_for_pattern(gone, None, None)) + list(graph.quads_for_pattern(None, None, gone)):
        graph.remove(quad)
    graph.dump(output=str(changed_graph), format=pyoxigraph.RdfFormat.N_TRIPLES, from_graph=pyoxigraph.DefaultGraph())
    kit = tmp_path / "kit.tar.gz"
    _invoke("eval", "kit", str(ck25_run["predictions"]), "--gold", str(ck25_run["gold"]), "--out", str(kit))
    # The kit's frozen gold against the changed graph (a gold store file reads the same way).
    outcome = _invoke(
        "eval",
        "drift",
        "ck25",
        "--gold",
        str(kit),
        "--data-dir",
        str(ck25_run["data_dir"]),
        "--data",
        str(changed_graph),
    )
    report = json.loads(outcome.stdout)
    entries = {entry["question_id"]: entry for entry in report["entries"]}
    assert target_id in entries and entries[target_id]["outcome"] == "changed"
    assert target in entries[target_id]["missing_answers"]
    assert entries[target_id]["gold_made_at"] != "dataset"
    # Only what the removal touched changed; the rest (and the drift CK25's gold already has) stays the same.
    assert report["counts"]["same"] > 0 and report["counts"]["changed"] == len(entries)

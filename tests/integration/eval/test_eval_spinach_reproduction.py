"""SPINACH's released QALD-10 predictions re-scored: our row F1 equals their per-question ``f1``.

All 387 entries reproduce exactly (no difference to explain on this file). The one place
our scorer can differ from SPINACH's code is term identity: SPINACH compares raw binding
dicts, we compare RDF terms, so ``"x"^^xsd:string`` and ``"x"`` (the same RDF 1.1 literal)
match for us and not for SPINACH, and Virtuoso's ``typed-literal`` equals ``literal``. The
released file has neither, which the last test checks, so the rate is exactly 100%.
"""

from __future__ import annotations

import gzip
import json
import statistics
from pathlib import Path

import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app
from saga_kgqa.eval.qa.metrics import spinach_row_f1
from saga_kgqa.eval.qa.scorer import summarise
from saga_kgqa.eval.qa.spinach_output import answer_tuple_result, read_spinach_output, score_entry

pytestmark = pytest.mark.shared_data

OUTPUT = "spinach/qald10_spinach_output_test.json.gz"


def test_row_f1_reproduces_every_reported_f1(data_dir: Path) -> None:
    entries = read_spinach_output(data_dir / OUTPUT)
    assert len(entries) == 387
    scores = [score_entry(entry) for entry in entries]
    differing = [
        entry.index
        for entry, score in zip(entries, scores, strict=True)
        if entry.reported_f1 is None
        or score.spinach_row_f1 is None
        or abs(score.spinach_row_f1 - entry.reported_f1) > 1e-9
    ]
    assert differing == []
    summary = summarise(scores)
    assert summary["means"]["spinach_row_f1"] == pytest.approx(statistics.fmean(e.reported_f1 or 0 for e in entries))
    # The stricter set metrics count the label columns SPINACH's predictions add, so they are lower.
    assert summary["means"]["paper_f1"] < summary["means"]["spinach_row_f1"]
    assert summary["means"]["strict_f1"] <= summary["means"]["strict_f1_canonical"]


def test_the_file_holds_no_binding_where_term_identity_and_dict_identity_differ(data_dir: Path) -> None:
    raw = json.loads(gzip.decompress((data_dir / OUTPUT).read_bytes()))
    for entry in raw:
        for key in ("gold_answer_tuple", "predicted_answer_tuple"):
            if isinstance(entry[key], list):
                for row in entry[key]:
                    for binding in row.values():
                        assert binding["type"] != "typed-literal"
                        assert binding.get("datatype") != "http://www.w3.org/2001/XMLSchema#string"


def test_where_our_term_identity_departs_from_spinach_dict_identity() -> None:
    gold = answer_tuple_result([{"x": {"type": "literal", "value": "v"}}])
    typed = answer_tuple_result(
        [{"x": {"type": "literal", "value": "v", "datatype": "http://www.w3.org/2001/XMLSchema#string"}}]
    )
    # SPINACH's dict comparison would give 0 here; the two are one RDF 1.1 literal.
    assert gold is not None
    assert spinach_row_f1(typed, gold) == 1.0


def test_saga_eval_score_prints_one_json_object_per_question(data_dir: Path) -> None:
    proc = CliRunner().invoke(app, ["eval", "score", "--format", "spinach-output", str(data_dir / OUTPUT), "--json"])
    assert proc.exit_code == 0, proc.output
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [line["index"] for line in lines] == list(range(387))
    assert all(line["spinach_row_f1"] == pytest.approx(line["reported_f1"]) for line in lines)
    expected_keys = {"paper_f1", "paper_em", "strict_f1", "strict_em", "strict_f1_canonical", "grasp_f1", "gerbil_f1"}
    assert expected_keys <= lines[0].keys()
    summary = json.loads(proc.stderr.strip().splitlines()[-1])["summary"]
    assert summary["scored"] == 387
    print(
        f"QALD-10 SPINACH output: row F1 {summary['means']['spinach_row_f1']:.4f}, "
        f"paper F1 {summary['means']['paper_f1']:.4f}, strict F1 {summary['means']['strict_f1']:.4f}, "
        f"GRASP F1 {summary['means']['grasp_f1']:.4f}"
    )

"""Pooling measurements, token buckets and the RESULT line."""

from __future__ import annotations

from pathlib import Path

from bench.grounding_eval.measurement import GraphMeasurement, LostUse, TokenSample
from bench.grounding_eval.report import (
    SUMMARY_COLUMNS,
    aligned,
    merged,
    result_line,
    summary_row,
    token_rows,
    token_table,
)


def _measurement(name: str, typed: int, retained: int, swaps: int, detected: int) -> GraphMeasurement:
    m = GraphMeasurement(graph=name, questions=typed)
    sub = m.modes["subclass"]
    sub.typed_uses, sub.retained_uses, sub.swaps, sub.detected = typed, retained, swaps, detected
    sub.hidden_shares.extend([0.0, 0.5])
    m.modes["exact"].typed_uses = typed
    return m


def test_pooled_shares_weigh_every_use_and_query_alike() -> None:
    total = merged([_measurement("a", 10, 10, 4, 4), _measurement("b", 90, 81, 6, 3)])
    sub = total.modes["subclass"]
    assert sub.retention == 91 / 100
    assert sub.detection == 7 / 10
    assert sub.reduction == 0.25
    assert total.questions == 100


def test_token_buckets_split_by_number_of_values() -> None:
    samples = [TokenSample("a", 1, 10, 20), TokenSample("b", 9, 10, 20), TokenSample("c", 10, 5, 5)]
    samples += [TokenSample("d", 49, 1, 4), TokenSample("e", 50, 2, 100), TokenSample("f", 900, 3, 900)]
    rows = {row.bucket: row for row in token_rows(samples)}
    assert (rows["1-9"].entities, rows["1-9"].compact_tokens, rows["1-9"].raw_tokens) == (2, 20, 40)
    assert rows["10-19"].entities == 1
    assert rows["20-49"].ratio == 0.25
    assert (rows["50-99"].entities, rows["100+"].entities, rows["100+"].raw_tokens) == (1, 1, 900)
    assert rows["all"].entities == 6
    assert token_rows([])[-1].ratio is None


def test_result_line_reports_subclass_mode_and_false_blocks_as_a_count() -> None:
    m = _measurement("a", 4, 3, 2, 1)
    m.modes["exact"].retained_uses = 2
    m.modes["subclass"].false_blocks["a:1"] = ("?x p ?y",)
    m.modes["subclass"].empty_gold_blocks["a:2"] = ("?x q ?y",)
    m.modes["subclass"].empty_gold_blocks["a:3"] = ("?x q ?y",)
    m.tokens.append(TokenSample("e", 3, 30, 60))
    assert result_line(m) == (
        "RESULT retention=0.7500 retention_exact=0.5000 reduction=0.2500 false_blocks=1 blocked_empty_gold=2 "
        "detection=0.5000 token_ratio=0.5000"
    )


def test_empty_measurements_print_nan_not_zero() -> None:
    line = result_line(GraphMeasurement(graph="none"))
    assert "retention=nan" in line and "false_blocks=0" in line and "token_ratio=nan" in line


def test_summary_rows_show_counts_behind_each_share() -> None:
    m = _measurement("a", 4, 3, 2, 1)
    m.modes["exact"].lost.append(LostUse("a:1", "?x", "p", frozenset()))
    row = dict(zip((name for name, _meaning in SUMMARY_COLUMNS), summary_row(m), strict=True))
    assert row["ret.sub"] == "0.750 3/4"
    assert row["ret.exact"] == "0.000 0/4"
    assert row["det.sub"] == "0.500 1/2"
    assert row["red.sub"] == "0.250"
    assert row["tok c/r"] == "n/a (0)"


def test_aligned_text_pads_every_column_to_its_widest_cell() -> None:
    text = aligned(["graph", "n"], [["ck25", "50"], ["spider/world_1", "120"]])
    assert text.splitlines() == [
        "graph             n",
        "--------------  ---",
        "ck25             50",
        "spider/world_1  120",
    ]


def test_token_table_prints_every_bucket_with_its_ratio() -> None:
    lines = token_table([TokenSample("a", 25, 1, 4)], noun="heads").splitlines()
    assert lines[0].split() == ["values", "heads", "compact", "raw", "JSON", "compact/raw"]
    assert lines[2].split() == ["1-9", "0", "0", "0", "n/a"]
    assert lines[4].split() == ["20-49", "1", "1", "4", "0.250"]


def test_swap_detection_is_labelled_an_agreement_figure() -> None:
    from bench.grounding_eval.report import AGREEMENT_NOTE, SUMMARY_COLUMNS

    legend = dict(SUMMARY_COLUMNS)
    assert "agreement" in legend["det.sub"]
    assert "agreement figures" in AGREEMENT_NOTE and "same compatibility verdict" in AGREEMENT_NOTE
    for bench in ("grounding.py", "grounding_wikidata.py"):
        text = (Path(__file__).resolve().parents[3] / "bench" / bench).read_text(encoding="utf-8")
        assert "console.print(AGREEMENT_NOTE, markup=False" in text

"""SPINACH's whole lookup cost: raw JSON + pruning prompt + pruned output (issue 13, point 5)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from bench.grounding_eval.measurement import TokenSample
from bench.grounding_eval.spinach_lookup_cost import (
    SPINACH_PRUNE_PROMPT_TOKENS,
    full_lookup_samples,
    ratio,
    recorded_pruned_tokens,
)
from bench.grounding_eval.tokens import count_tokens

WD = "http://www.wikidata.org/entity/"


def test_recorded_pruned_outputs_are_read_per_entity(tmp_path: Path) -> None:
    pruned = '{"population (P1082)": "1961260"}'
    traces = [
        {"actions": [{"action_name": "get_wikidata_entry", "action_argument": "Q42053", "observation": pruned}]},
        {"actions": [{"action_name": "search_wikidata", "action_argument": "Isfahan", "observation": "x"}]},
    ]
    path = tmp_path / "trace.json.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        json.dump(traces, handle)
    assert recorded_pruned_tokens(path) == {WD + "Q42053": count_tokens(pruned)}


def test_the_full_cost_adds_the_prompt_and_a_pruned_output_no_larger_than_the_raw_json() -> None:
    samples = [TokenSample(WD + "Q1", 30, 100, 400), TokenSample(WD + "Q2", 5, 50, 20)]
    full = full_lookup_samples(samples, {WD + "Q1": 90, WD + "Q9": 60})
    assert full[0].raw_tokens == 400 + SPINACH_PRUNE_PROMPT_TOKENS + 90
    # Q2 has no recorded output: the median (75) of the recorded ones, capped at its raw JSON (20).
    assert full[1].raw_tokens == 20 + SPINACH_PRUNE_PROMPT_TOKENS + 20
    assert ratio(full) == 150 / (full[0].raw_tokens + full[1].raw_tokens)

"""The source tools' prompt block and their ``SOURCE: rest`` arguments."""

from __future__ import annotations

from pathlib import Path

from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.graph.source_tools import LOW_BUDGET_STEPS, SourceMode, source_prompt_lines, split_target
from saga_kgqa.sources.session import SourceSet
from tests.conftest import TEST_DATA

LAB = TEST_DATA / "autoschema" / "lab.trig"


def test_split_target_takes_the_source_name_before_the_first_colon() -> None:
    assert split_target("people: SELECT ?n WHERE { ?s <http://x/name> ?n }") == (
        "people",
        "SELECT ?n WHERE { ?s <http://x/name> ?n }",
    )
    assert split_target(" ck25 :Karen Brant ") == ("ck25", "Karen Brant")
    # A query without a source name is no target (its PREFIX colon is not one).
    assert split_target("PREFIX ex: <http://x/> SELECT * WHERE { ?s ?p ?o }") is None
    assert split_target("Karen Brant") is None
    assert split_target("people:   ") is None


def test_the_policy_says_answer_now_only_when_the_budget_is_nearly_spent(tmp_path: Path) -> None:
    records = {f"s{n}": SourceRecord(name=f"s{n}", data=(LAB,)) for n in range(7)}
    with SourceSet(Catalog(sources=records, default_source="s0"), survey_dir=tmp_path) as sources:
        mode = SourceMode(sources, find=True)
        plenty = source_prompt_lines(mode, steps_left=LOW_BUDGET_STEPS + 3)
        low = source_prompt_lines(mode, steps_left=LOW_BUDGET_STEPS)
    assert "nearly spent" not in plenty and f"Steps left: {LOW_BUDGET_STEPS + 3}." in plenty
    assert "answer now with the best supported result" in low
    assert "pivot" in plenty and "summary once per chosen source" in plenty
    assert source_prompt_lines(SourceMode(), steps_left=3) == ""

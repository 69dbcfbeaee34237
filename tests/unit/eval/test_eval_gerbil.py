"""GERBIL QA's aggregates against cases worked out by hand from its Java sources.

``QAMatchingsCounter`` counts one question; ``FMeasureCalculator`` gives micro, macro and
"Macro F1 QALD" (dice-group/gerbil, branch QuestionAnsweringQALD10).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app
from saga_kgqa.eval.qa.gerbil import GerbilCounts, gerbil_counts, gerbil_summary, measures
from saga_kgqa.eval.qa.gold import GoldRecord, GoldStatus, GoldStore
from saga_kgqa.kg.core.result import QueryResult, Term
from saga_kgqa.runs.predictions import PredictionRecord, PredictionStatus


def select(*values: str) -> QueryResult:
    return QueryResult(form="SELECT", variables=["x"], rows=[{"x": Term("uri", v)} for v in values])


def ask(answer: bool) -> QueryResult:
    return QueryResult(form="ASK", variables=[], rows=[], boolean=answer)


#: (predicted, gold) -> GERBIL's counts, precision/recall/F1 by hand.
#: q1 half right; q2 no answer; q3 empty gold answered empty; q4 all wrong; q5 ASK right.
CASES = [
    (select("a", "c"), select("a", "b")),
    (None, select("a", "b")),
    (select(), select()),
    (select("y", "z"), select("x")),
    (ask(True), ask(True)),
]


def test_counts_follow_the_qa_matchings_counter() -> None:
    counted = [gerbil_counts(p, g) for p, g in CASES]
    assert counted == [
        GerbilCounts(1, 1, 1),
        GerbilCounts(0, 0, 2),
        GerbilCounts(0, 0, 0),
        GerbilCounts(0, 2, 1),
        GerbilCounts(1, 0, 0),
    ]
    # QAMatchingsCounterTest's "one exact, one wrong, a missing matching" example: {1, 1, 2}.
    mixed = gerbil_counts(
        select("http://kb.com/1", "http://ukb.com/2"), select("http://kb.com/1", "http://kb.com/2", "http://kb.com/3")
    )
    assert mixed == GerbilCounts(1, 1, 2)
    # An ASK answered wrongly: "false" is a false positive, "true" a false negative.
    assert gerbil_counts(ask(False), ask(True)) == GerbilCounts(0, 1, 1)


def test_the_two_per_question_rules_differ_only_on_no_answer() -> None:
    assert measures(GerbilCounts(0, 0, 2)) == (0.0, 0.0, 0.0)
    assert measures(GerbilCounts(0, 0, 2), qald_rule=True) == (1.0, 0.0, 0.0)
    for counts in (GerbilCounts(0, 0, 0), GerbilCounts(0, 2, 1), GerbilCounts(1, 1, 1)):
        assert measures(counts) == measures(counts, qald_rule=True)


def test_aggregates_match_the_hand_computation() -> None:
    summary = gerbil_summary(gerbil_counts(p, g) for p, g in CASES)
    assert summary is not None
    # Macro (calculateMeasures): P per question 0.5, 0, 1, 0, 1 -> 0.5; R the same; F1 the same.
    assert summary["Macro Precision"] == pytest.approx(0.5)
    assert summary["Macro Recall"] == pytest.approx(0.5)
    assert summary["Macro F1 score"] == pytest.approx(0.5)
    # Micro: TP 2, FP 3, FN 4 -> P 2/5, R 2/6, F1 2PR/(P+R) = 4/11.
    assert summary["Micro Precision"] == pytest.approx(2 / 5)
    assert summary["Micro Recall"] == pytest.approx(1 / 3)
    assert summary["Micro F1 score"] == pytest.approx(4 / 11)
    # Macro F1 QALD: QALD-rule P 0.5, 1, 1, 0, 1 -> 0.7; R 0.5 -> 2*0.7*0.5/1.2 = 7/12,
    # above both reported macro P and R, as on the QALD-10 leaderboard (59.47 beside 45.38/45.74).
    assert summary["Macro F1 QALD"] == pytest.approx(7 / 12)
    assert summary["Macro F1 QALD"] > max(summary["Macro Precision"], summary["Macro Recall"])
    assert gerbil_summary([]) is None


def rows(*values: str) -> dict[str, object]:
    return select(*values).to_sparql_json()


def test_cli_scorer_gerbil_prints_the_leaderboard_measures_and_counts_empty_gold(tmp_path: Path) -> None:
    gold = GoldStore(
        [
            GoldRecord(question_id="q1", status=GoldStatus.OK, answers=rows("a", "b")),
            GoldRecord(question_id="q2", status=GoldStatus.OK, answers=rows("a", "b")),
            GoldRecord(question_id="q3", status=GoldStatus.EMPTY, answers=rows()),
            GoldRecord(question_id="q4", status=GoldStatus.OK, answers=rows("x")),
            GoldRecord(question_id="q5", status=GoldStatus.UNAVAILABLE, error="timeout"),
        ]
    )
    gold.save(tmp_path / "gold.jsonl")
    records = [
        PredictionRecord(question_id="q1", predicted_sparql="SELECT", predicted_answers=rows("a", "c")),
        PredictionRecord(question_id="q2", status=PredictionStatus.FAILED, error="boom"),
        PredictionRecord(question_id="q3", predicted_sparql="SELECT", predicted_answers=rows()),
        PredictionRecord(question_id="q4", predicted_sparql="SELECT", predicted_answers=rows("y", "z")),
        PredictionRecord(question_id="q5", predicted_sparql="SELECT", predicted_answers=rows("a")),
    ]
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    args = ["eval", "score", str(predictions), "--gold", str(tmp_path / "gold.jsonl")]
    outcome = CliRunner().invoke(app, [*args, "--scorer", "gerbil"], terminal_width=200)
    assert outcome.exit_code == 0, outcome.output
    # q1..q4 counted (q3's empty gold too), q5 has no gold: P 0.5+0+1+0 -> 37.50, QALD P 2.5/4, R 1.5/4.
    assert "Macro Precision" in outcome.stdout and "37.50" in outcome.stdout
    assert "Macro F1 QALD" in outcome.stdout and f"{100 * 2 * 0.625 * 0.375:.2f}" in outcome.stdout
    assert "GERBIL counts 4 questions" in outcome.stdout
    as_json = CliRunner().invoke(app, [*args, "--json"])
    summary = json.loads(as_json.stderr.strip().splitlines()[-1])["summary"]
    assert summary["gerbil_questions"] == 4
    assert summary["gerbil"]["Micro Precision"] == pytest.approx(1 / 4)

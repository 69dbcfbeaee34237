"""TEXT2SPARQL's official evaluator (text2sparql-client 2.1.0 over trec_eval), reproduced.

The fixture ``tests/data/text2sparql_official/ck25_ordered.json`` holds, for the ordered CK25
questions (features list ORDER), the value sets the official client built from the gold
queries and from GRASP's two CK25 runs, and the per-question figures ``text2sparql
evaluate`` printed for them (the command is in docs/examples-and-answer-shape.md).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from saga_kgqa.eval.qa.metrics import text2sparql_ndcg, text2sparql_prf, text2sparql_values
from saga_kgqa.eval.qa.text2sparql_eval import ordered_questions, score_run
from saga_kgqa.kg.core.result import QueryResult, Term

FIXTURE = Path(__file__).resolve().parents[2] / "data" / "text2sparql_official" / "ck25_ordered.json"


def _fixture() -> dict[str, object]:
    data: dict[str, object] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("run", ["gold", "search_extended", "search_extended_with_feedback"])
def test_ndcg_and_set_figures_match_the_official_evaluator_on_every_ordered_ck25_question(run: str) -> None:
    data = _fixture()
    gold = data["gold"]
    runs = data["runs"]
    assert isinstance(gold, dict) and isinstance(runs, dict)
    official, predicted = runs[run]["official"], runs[run]["predicted"]
    assert len(official) >= 12  # every ordered question with non-empty gold
    for name, figures in official.items():
        assert text2sparql_ndcg(predicted[name], gold[name]) == pytest.approx(figures["ndcg"], abs=1e-12), name
        prf = text2sparql_prf(predicted[name], gold[name])
        assert prf is not None
        assert (prf.precision, prf.recall, prf.f1) == pytest.approx(
            (figures["set_P"], figures["set_recall"], figures["set_F"]), abs=1e-12
        ), name


def test_official_ndcg_ranks_tied_values_by_reverse_code_point_order() -> None:
    gold = {"a": 1, "b": 1, "c": 1}
    # all predicted values weigh 1, so trec_eval ranks z, y, a: the hit sits at rank 3
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert text2sparql_ndcg({"a": 1, "y": 1, "z": 1}, gold) == pytest.approx((1 / math.log2(4)) / ideal)
    # the order the query returned does not matter, only the set
    assert text2sparql_ndcg({"z": 1, "y": 1, "a": 1}, gold) == text2sparql_ndcg({"a": 1, "y": 1, "z": 1}, gold)
    # a wrong value that sorts below the right ones costs nothing
    assert text2sparql_ndcg({"a": 1, "b": 1, "c": 1, "0": 1}, gold) == pytest.approx(1.0)
    assert text2sparql_ndcg({}, gold) == 0.0
    assert text2sparql_ndcg({"a": 1}, {}) is None


def test_official_set_figures_treat_any_ask_answer_as_retrieving_true() -> None:
    true_answer = text2sparql_values(QueryResult(form="ASK", boolean=True))
    false_answer = text2sparql_values(QueryResult(form="ASK", boolean=False))
    assert true_answer == {"true": 1} and false_answer == {"true": 0}
    assert text2sparql_prf(false_answer, {"true": 1}) == text2sparql_prf(true_answer, {"true": 1})
    figures = text2sparql_prf(true_answer, {"true": 0})
    assert figures is not None and figures.f1 == 0.0
    assert text2sparql_prf({}, {}) is None


def test_values_flatten_every_projected_column_once() -> None:
    rows = [
        {"s": Term("uri", "http://x/1"), "label": Term("literal", "One")},
        {"s": Term("uri", "http://x/1"), "label": Term("literal", "Uno", lang="es")},
        {"s": Term("uri", "http://x/2")},
    ]
    result = QueryResult(form="SELECT", variables=["s", "label"], rows=rows)
    assert text2sparql_values(result) == {"http://x/1": 1, "One": 1, "Uno": 1, "http://x/2": 1}
    assert text2sparql_values(None) == {}


def test_run_means_drop_empty_gold_and_add_the_mean_ndcg_term_as_the_client_does() -> None:
    gold = {"q:1-en": {"a": 1, "b": 1}, "q:2-en": {"c": 1}, "q:3-en": {}, "order_required": ["q:2-en"]}
    predicted = {"q:1-en": {"a": 1}, "q:2-en": {"c": 1, "d": 1}}
    scores = score_run(predicted, gold)
    assert scores.dropped == ["q:3-en"]
    assert scores.set_p == pytest.approx((1 + 0.5) / 2)
    assert scores.set_recall == pytest.approx((0.5 + 1) / 2)
    q2_ndcg = 1 / math.log2(3)  # d sorts above c
    assert scores.questions["q:2-en"].ndcg == pytest.approx(q2_ndcg)
    assert scores.combined_per_question == pytest.approx((2 / 3 + q2_ndcg) / 2)
    assert scores.set_f_ndcg == pytest.approx((2 / 3 + q2_ndcg + q2_ndcg) / 3)


def test_order_required_comes_from_the_result_order_feature() -> None:
    questions = [{"id": 1, "features": ["SELECT", "ORDER"]}, {"id": 2, "features": ["ORDER", "RESULT_ORDER_MATTERS"]}]
    assert ordered_questions(questions, "ck25", ["en", "de"]) == ["ck25:2-en", "ck25:2-de"]

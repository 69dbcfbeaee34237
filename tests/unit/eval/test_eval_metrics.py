"""Every metric on hand-computed cases, including the published systems' own test cases."""

from __future__ import annotations

import pytest

from saga_kgqa.eval.qa.gerbil import gerbil_prf
from saga_kgqa.eval.qa.metrics import grasp_f1, paper_f1, spinach_row_f1, strict_set_f1
from saga_kgqa.eval.qa.scorer import score_question, summarise
from saga_kgqa.kg.core.result import QueryResult, Term

XSD = "http://www.w3.org/2001/XMLSchema#"


def uri(name: str) -> Term:
    return Term("uri", f"http://example.org/{name}")


def select(variables: list[str], *rows: tuple[Term, ...]) -> QueryResult:
    return QueryResult(
        form="SELECT", variables=variables, rows=[dict(zip(variables, row, strict=True)) for row in rows]
    )


def ask(value: bool) -> QueryResult:
    return QueryResult(form="ASK", boolean=value)


def test_paper_f1_is_the_set_formula_over_values() -> None:
    gold = select(["x"], (uri("a"),), (uri("b"),), (uri("c"),))
    predicted = select(["y"], (uri("a"),), (uri("d"),))
    # 2 * |{a}| / (2 + 3)
    assert paper_f1(predicted, gold) == pytest.approx(2 / 5)
    assert paper_f1(None, gold) == 0.0
    # values, not terms: a plain literal with the IRI's text counts as the same value
    assert paper_f1(select(["x"], (Term("literal", "http://example.org/a"),)), select(["x"], (uri("a"),))) == 1.0


def test_strict_f1_raw_and_canonical_differ_on_literal_spelling() -> None:
    gold = select(["n"], (Term("literal", "+100", XSD + "decimal"),), (Term("literal", "Paris", lang="en"),))
    predicted = select(["n"], (Term("literal", "100", XSD + "integer"),), (Term("literal", "Paris"),))
    assert strict_set_f1(predicted, gold) == 0.0
    assert strict_set_f1(predicted, gold, canonical=True) == 1.0


def test_booleans_are_explicit_in_every_metric() -> None:
    yes, no, rows = ask(True), ask(False), select(["x"], (uri("a"),))
    for metric in (paper_f1, strict_set_f1, spinach_row_f1, grasp_f1):
        assert metric(yes, yes) == 1.0
        assert metric(no, yes) == 0.0
    assert strict_set_f1(rows, yes) == 0.0
    assert spinach_row_f1(rows, yes) == 0.0
    # GRASP turns a SELECT prediction into "is it non-empty" against an ASK gold ...
    assert grasp_f1(rows, yes) == 1.0
    assert grasp_f1(select(["x"]), no) == 1.0
    # ... but an ASK prediction never answers a SELECT gold.
    assert grasp_f1(yes, rows) == 0.0
    assert gerbil_prf(yes, yes).f1 == 1.0 and gerbil_prf(rows, yes).f1 == 0.0


def test_spinach_row_f1_partial_rows_ignored_gold_label_columns() -> None:
    # Gold rows carry a label column that SPINACH drops; the predicted rows have extra values.
    gold = QueryResult(
        form="SELECT",
        variables=["item", "itemLabel", "date"],
        rows=[
            {"item": uri("a"), "itemLabel": Term("literal", "A", lang="en"), "date": Term("literal", "1")},
            {"item": uri("b"), "itemLabel": Term("literal", "B", lang="en"), "date": Term("literal", "2")},
        ],
    )
    predicted = select(["p", "q"], (uri("a"), Term("literal", "1")), (uri("b"), Term("literal", "9")))
    # pair scores 1 and 1/2: TP 1.5, errors 0.5 -> 3 / 3.5
    assert spinach_row_f1(predicted, gold) == pytest.approx(3 / 3.5)
    # an unmatched predicted row adds one error, a zero-scoring pair two
    extra = select(["p", "q"], (uri("a"), Term("literal", "1")), (uri("b"), Term("literal", "2")), (uri("z"), uri("z")))
    assert spinach_row_f1(extra, gold) == pytest.approx(4 / 5)
    assert spinach_row_f1(select(["p"], (uri("z"),)), select(["x"], (uri("a"),))) == 0.0


def test_spinach_row_f1_label_only_gold_scores_zero() -> None:
    gold = select(["xLabel"], (Term("literal", "A", lang="en"),))
    assert spinach_row_f1(select(["xLabel"], (Term("literal", "A", lang="en"),)), gold) == 0.0


def test_grasp_cases_from_its_own_test_suite() -> None:
    # GRASP's test_assignment_f1_score_partial_match: F1 = 0.909...
    a, b, c, d, e, f = (Term("literal", x) for x in "abcdef")
    predicted = QueryResult(form="SELECT", variables=["x", "y", "z"], rows=[{"x": a, "y": b, "z": c}, {"x": d, "y": e}])
    gold = QueryResult(form="SELECT", variables=["x", "y", "z"], rows=[{"x": a, "y": b}, {"x": d, "y": e, "z": f}])
    assert grasp_f1(predicted, gold) == pytest.approx(0.9090909090909091, abs=1e-6)
    # test_assignment_f1_score_different_lengths: 0.5
    g, h = Term("literal", "g"), Term("literal", "h")
    three = select(["x", "y"], (a, b), (c, d), (e, f))
    two = select(["x", "y"], (a, b), (g, h))
    assert grasp_f1(three, two) == pytest.approx(0.5)
    # two empty results agree; one empty result scores 0
    assert grasp_f1(select(["x"]), select(["x"])) == 1.0
    assert grasp_f1(select(["x"]), two) == 0.0


def test_grasp_switches_to_exact_multiset_f1_above_the_row_limit() -> None:
    gold = select(["x"], *((uri(str(i)),) for i in range(6)))
    # Row (a, extra) covers gold row (a) fully under assignment F1, but not as a whole row.
    predicted = select(["x", "y"], *((uri(str(i)), uri("extra")) for i in range(6)))
    assert grasp_f1(predicted, gold) == 1.0
    assert grasp_f1(predicted, gold, exact_after=5) == 0.0


def test_gerbil_empty_answer_rules() -> None:
    gold = select(["x"], (uri("a"),), (uri("b"),))
    assert gerbil_prf(None, gold) == gerbil_prf(select(["x"]), gold)
    could_not_answer = gerbil_prf(select(["x"]), gold)
    assert (could_not_answer.precision, could_not_answer.recall, could_not_answer.f1) == (1.0, 0.0, 0.0)
    assert gerbil_prf(select(["x"]), select(["x"])).f1 == 1.0
    assert gerbil_prf(select(["x"], (uri("a"),)), select(["x"])).f1 == 0.0
    half = gerbil_prf(select(["x"], (uri("a"),), (uri("c"),)), gold)
    assert (half.precision, half.recall, half.f1) == (0.5, 0.5, 0.5)


def test_value_only_gold_gets_the_paper_f1_alone() -> None:
    gold = select(["answer"], (Term("literal", "http://example.org/a"),))
    scores = score_question(select(["x"], (uri("a"),)), gold, gold_is_values=True)
    assert scores.paper_f1 == 1.0 and scores.paper_em == 1.0
    assert scores.strict_f1 is None and scores.spinach_row_f1 is None and scores.grasp_f1 is None


def test_summary_skips_unscored_questions_and_undefined_metrics() -> None:
    gold = select(["x"], (uri("a"),), (uri("b"),))
    full = score_question(select(["x"], (uri("a"),), (uri("b"),)), gold)
    empty = score_question(select(["x"]), gold)
    values = score_question(select(["x"], (uri("a"),)), gold, gold_is_values=True)
    summary = summarise([full, empty, values], ["gold_unavailable", "drift", "gold_unavailable"])
    assert summary["scored"] == 3
    assert summary["not_scored"] == {"drift": 1, "gold_unavailable": 2}
    assert summary["means"]["strict_f1"] == pytest.approx(0.5)  # the value-only question is left out
    assert summary["means"]["paper_f1"] == pytest.approx((1 + 0 + 2 / 3) / 3)
    assert summary["empty_result_rate"] == pytest.approx(1 / 3)
    # GERBIL macro: P = (1 + 1) / 2, R = (1 + 0) / 2 -> 2 * 1 * 0.5 / 1.5
    assert summary["gerbil_qald_macro_f1"] == pytest.approx(2 / 3)


def test_indexed_pair_scores_equal_the_reference_all_pairs_loop() -> None:
    import random
    from collections import Counter

    import numpy as np

    from saga_kgqa.eval.qa.metrics import _recall_matrix

    rng = random.Random(7)
    pool = [Term("literal", str(n)) for n in range(6)]
    predicted = [Counter(rng.choices(pool, k=rng.randint(0, 4))) for _ in range(15)]
    gold = [Counter(rng.choices(pool, k=rng.randint(0, 3))) for _ in range(12)]
    reference = np.array(
        [[(g & p).total() / g.total() if g.total() else 0.0 for g in gold] for p in predicted], dtype=np.float64
    )
    assert np.array_equal(_recall_matrix(predicted, gold, np.float64), reference)

"""Answer checks that see a wrong answer's kind and an empty dependent step (issue 22, point 4)."""

from __future__ import annotations

from saga_kgqa.checks import CHECKS, CheckInput, run_checks
from saga_kgqa.kg.core.result import Term

EX = {"ex": "http://example.org/"}
XSD_INT = "http://www.w3.org/2001/XMLSchema#integer"
IDS = [{"c": Term("literal", "700", XSD_INT)}, {"c": Term("literal", "701", XSD_INT)}]
NAMES = [{"n": Term("literal", "Sky Radio")}, {"n": Term("literal", "Rai 1")}]
SERIES = [{"s": Term("uri", "http://example.org/series/3")}]


def _findings(item: CheckInput) -> list[str]:
    return [f.text() for f in run_checks(item, EX, tuple(CHECKS))]


def test_numbers_for_a_name_question_are_flagged_as_ids() -> None:
    item = CheckInput(
        "Which series are shown on channels from Italy?",
        "SELECT ?c WHERE { ?c ex:country 'Italy' }",
        IDS,
        expected="literal",
        expected_label="name",
        observations=["ex:country"],
    )
    found = [f for f in _findings(item) if f.startswith("[check answer_type]")]
    assert found and "numbers" in found[0] and "name" in found[0]


def test_names_for_a_name_question_and_numbers_for_a_number_question_pass() -> None:
    named = CheckInput(
        "Which channels?",
        "SELECT ?n WHERE { ?c ex:name ?n }",
        NAMES,
        expected="literal",
        expected_label="name",
        observations=["ex:name"],
    )
    counted = CheckInput(
        "What is the id?",
        "SELECT ?c WHERE { ?c ex:id ?i }",
        IDS,
        expected="quantity",
        expected_label="number",
        observations=["ex:id"],
    )
    entities = CheckInput(
        "Which series?",
        "SELECT ?s WHERE { ?s ex:on ?c }",
        SERIES,
        expected="literal",
        expected_label="name",
        observations=["ex:on"],
    )
    assert not [f for f in _findings(named) if "answer_type" in f]
    assert not [f for f in _findings(counted) if "answer_type" in f]
    assert not [f for f in _findings(entities) if "answer_type" in f]


def test_an_answer_whose_dependent_step_came_back_empty_is_flagged() -> None:
    item = CheckInput(
        "Which series are shown on channels from Italy?",
        "SELECT ?c WHERE { ?c ex:country 'Italy' }",
        IDS,
        expected="literal",
        observations=["ex:country"],
        later_empty=((4, "SELECT ?s WHERE { ?s ex:channel ?c VALUES ?c { 700 701 } }"),),
    )
    found = [f for f in _findings(item) if f.startswith("[check dependent_step]")]
    assert found and "step 4" in found[0]


def test_a_later_empty_query_that_does_not_use_the_answer_is_not_a_dependent_step() -> None:
    item = CheckInput(
        "Which channels are from Italy?",
        "SELECT ?c WHERE { ?c ex:country 'Italy' }",
        IDS,
        expected="literal",
        observations=["ex:country"],
        later_empty=((4, "SELECT ?s WHERE { ?s ex:channel ex:other }"),),
    )
    assert not [f for f in _findings(item) if "dependent_step" in f]

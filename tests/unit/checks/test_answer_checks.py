"""Each answer check on its own: what it flags and what it leaves alone (saga_kgqa.checks)."""

from __future__ import annotations

from saga_kgqa.checks import CHECKS, CheckInput, run_checks
from saga_kgqa.kg.core.result import Term

WD = {"wd": "http://www.wikidata.org/entity/", "wdt": "http://www.wikidata.org/prop/direct/"}
CANBERRA = {"c": Term("uri", "http://www.wikidata.org/entity/Q3114")}
NUMBER = {"n": Term("literal", "467194", "http://www.w3.org/2001/XMLSchema#decimal")}


def _names(item: CheckInput) -> list[str]:
    return [f.check for f in run_checks(item, WD, tuple(CHECKS))]


def test_canberra_for_how_many_people_is_a_missing_hop() -> None:
    item = CheckInput(
        question="How many people live in the capital of Australia?",
        sparql="SELECT ?c WHERE { wd:Q408 wdt:P36 ?c }",
        rows=[CANBERRA],
        expected="quantity",
        observations=["Australia (Q408)", "capital (P36)"],
    )
    assert _names(item) == ["answer_type"]


def test_the_stored_population_is_not_flagged_but_a_count_of_rows_is() -> None:
    question = "How many people live in the capital of Australia?"
    seen = ["Q408 P36 Q3114 P1082 P551"]
    stored = CheckInput(question, "SELECT ?n WHERE { wd:Q3114 wdt:P1082 ?n }", [NUMBER], None, "quantity", seen)
    counted = CheckInput(
        question, "SELECT (COUNT(?p) AS ?n) WHERE { ?p wdt:P551 wd:Q3114 }", [NUMBER], None, "quantity", seen
    )
    assert _names(stored) == []
    assert _names(counted) == ["question_form"]


def test_a_lost_negation_in_an_ask_is_flagged_and_a_kept_one_is_not() -> None:
    seen = ["Q42 P570"]
    lost = CheckInput(
        "Is there no date of death for Q42?", "ASK { wd:Q42 wdt:P570 ?d }", boolean=True, observations=seen
    )
    kept = CheckInput(
        "Is there no date of death for Q42?", "ASK { FILTER NOT EXISTS { wd:Q42 wdt:P570 ?d } }", observations=seen
    )
    assert _names(lost) == ["question_form"]
    assert _names(kept) == []


def test_a_superlative_without_ordering_is_flagged() -> None:
    rows = [CANBERRA, CANBERRA]
    item = CheckInput(
        "Which is the largest city?", "SELECT ?c WHERE { ?c wdt:P31 wd:Q515 }", rows, observations=["Q515 P31"]
    )
    ordered = CheckInput(
        "Which is the largest city?",
        "SELECT ?c WHERE { ?c wdt:P31 wd:Q515 ; wdt:P1082 ?n } ORDER BY DESC(?n) LIMIT 1",
        rows,
        observations=["Q515 P31 P1082"],
    )
    assert _names(item) == ["question_form"] and _names(ordered) == []


def test_a_date_expected_but_entities_returned_and_a_class_mismatch() -> None:
    date = CheckInput("When?", "SELECT ?c WHERE { wd:Q1 wdt:P36 ?c }", [CANBERRA], None, "date", ["Q1 P36"])
    assert _names(date) == ["answer_type"]
    person = CheckInput(
        "Where was the president born?",
        "SELECT ?c WHERE { wd:Q1 wdt:P35 ?c }",
        [CANBERRA],
        observations=["Q1 P35"],
        result_types=frozenset({"http://www.wikidata.org/entity/Q5"}),
        expected_types=frozenset({"http://www.wikidata.org/entity/Q515"}),
    )
    assert _names(person) == ["answer_type"]


def test_know_before_use_respects_what_the_graph_holds() -> None:
    item = CheckInput(
        "Who?", "SELECT ?x WHERE { wd:Q42 wdt:P99999 ?x }", [CANBERRA], observations=["Q42 (Douglas Adams)"]
    )
    assert [f.check for f in run_checks(item, WD, ["know_before_use"])] == ["know_before_use"]
    held = CheckInput(item.question, item.sparql, item.rows, observations=item.observations, exists=lambda _iri: True)
    assert run_checks(held, WD, ["know_before_use"]) == []


def test_consistency_needs_some_overlap_with_the_run() -> None:
    unrelated = CheckInput(
        "Who?", "SELECT ?x WHERE { wd:Q7 wdt:P8 ?x }", [CANBERRA], observations=["Q42 (Douglas Adams)"]
    )
    related = CheckInput(
        "Who?", "SELECT ?x WHERE { wd:Q42 wdt:P8 ?x }", [CANBERRA], observations=["Q42 (Douglas Adams)"]
    )
    assert "consistency" in _names(unrelated) and "consistency" not in _names(related)

"""The question's language is detected and names are searched in it (German and Spanish, scripted model)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from saga_kgqa.language import detect_language, language_note
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.conftest import TEST_DATA
from tests.support.agent import open_toolbox, run_agent
from tests.support.scripted_model import answer_type, tool_call

WD = "http://www.wikidata.org/entity/"
GERMAN = "Wie viele Einwohner hat die Hauptstadt von Deutschland?"
SPANISH = "¿Cuál es la capital de Alemania?"
CHECKS_OFF: dict[str, Any] = {
    "check_answer_type": False,
    "check_question_form": False,
    "check_know_before_use": False,
    "check_consistency": False,
}


@pytest.fixture(scope="module")
def sample() -> Iterator[SagaToolbox]:
    toolbox = open_toolbox([TEST_DATA / "multilingual_sample.ttl"])
    yield toolbox
    toolbox.graph.close()


def _search(toolbox: SagaToolbox, question: str, text: str, language: str) -> str:
    run = run_agent(
        toolbox,
        [answer_type("country"), tool_call("search", text=text), tool_call("stop")],
        question=question,
        language=language,
        **CHECKS_OFF,
    )
    step = run.state["history"][0]
    assert step.tool == "search"
    observation: str = step.observation
    controller = run.model.prompt_text(1)
    if language == "en":
        assert "The question is in" not in controller
    else:
        assert language_note(language) in controller
    return observation


def test_detection_names_german_spanish_and_english_questions() -> None:
    assert detect_language(GERMAN) == "de"
    assert detect_language(SPANISH) == "es"
    assert detect_language("What is the capital of Germany?") == "en"
    # too short to tell: the default
    assert detect_language("Berlin") == "en"
    assert detect_language("Berlin", default="de") == "de"


def test_a_german_question_finds_its_entity_by_its_german_label(sample: SagaToolbox) -> None:
    language = detect_language(GERMAN)
    found = _search(sample, GERMAN, "Deutschland", language)
    assert f"{WD}Q183" in found or "wd:Q183" in found
    assert '"Deutschland" (wd:Q183)' in found  # shown by its name in the question's language
    # Every language is indexed (ranked, not dropped): an English run still finds it by the German
    # name, shows it by its English one and says which name matched.
    other = _search(sample, GERMAN, "Deutschland", "en")
    assert '"Germany" (wd:Q183) [matched "Deutschland"]' in other


def test_a_spanish_question_finds_its_entity_by_its_spanish_label(sample: SagaToolbox) -> None:
    language = detect_language(SPANISH)
    found = _search(sample, SPANISH, "Alemania", language)
    assert '"Alemania" (wd:Q183)' in found
    assert '"Germany" (wd:Q183) [matched "Alemania"]' in _search(sample, SPANISH, "Alemania", "en")


def test_english_names_stay_searchable_under_another_language(sample: SagaToolbox) -> None:
    # "Munich"@en only matches by its English name; a German question still finds it (the fallback).
    assert "Q1726" in _search(sample, GERMAN, "Munich", "de")


@pytest.mark.shared_data
def test_a_german_question_on_the_corporate_graph_finds_the_employee(data_dir: Path) -> None:
    toolbox = open_toolbox([data_dir / "text2sparql_ck25" / "prod-inst.ttl"])
    try:
        question = "In welcher Abteilung arbeitet Frau Brant?"
        language = detect_language(question)
        assert language == "de"
        found = _search(toolbox, question, "Karen Brant", language)
        assert "empl-Karen.Brant" in found
    finally:
        toolbox.graph.close()

"""Prompt files, prompt assembly and the finalize helpers."""

from __future__ import annotations

import re

import pytest

from saga_kgqa.config.context import DIALECT_NAMES as DIALECTS
from saga_kgqa.config.context import SagaContext
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.graph.builder import recursion_limit, run_config
from saga_kgqa.graph.finalize import choose_final_query, without_exploratory_limit
from saga_kgqa.graph.prompting import (
    answer_type_messages,
    controller_messages,
    history_text,
    knowledge_log_text,
    parse_messages,
)
from saga_kgqa.prompts import dialect_wording, render_prompt
from saga_kgqa.state import KnowledgeEntry, QueryAttempt, Step, answer_type_prior
from saga_kgqa.state.records import AnswerType

_PLACEHOLDER = re.compile(r"\$[a-z_]+")


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("mode", ["native", "text"])
def test_every_prompt_renders_fully_in_every_dialect(dialect: str, mode: str) -> None:
    context = SagaContext(dialect=dialect, tool_calling=mode)  # type: ignore[arg-type]
    state = {"question": "Who?", "theta": answer_type_prior("http://x/C", label="c")}
    texts = [m.content for m in answer_type_messages("Who?", context)]
    texts += [m.content for m in controller_messages(state, context, {})]  # type: ignore[arg-type]
    texts += [m.content for m in parse_messages("Thought: t\nAction: stop()")]
    for text in texts:
        assert isinstance(text, str) and not _PLACEHOLDER.search(text), text
    assert dialect_wording(dialect)["kg_name"] in "\n".join(str(t) for t in texts)


def test_a_missing_value_or_prompt_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="needs a value for 'more_actions'"):
        render_prompt("action_parsing")
    with pytest.raises(ConfigurationError, match="no prompt named"):
        render_prompt("nonexistent")
    with pytest.raises(ConfigurationError, match="unknown dialect"):
        dialect_wording("dbpedia")


def test_controller_prompt_shows_the_type_context_the_switches_allow() -> None:
    state = {
        "question": "Who?",
        "answer_type": AnswerType(label="person", type_id="ex:P", type_iri="http://x/P", kind="entity"),
    }
    full = str(controller_messages(state, SagaContext(), {"ex": "http://x/"})[0].content)  # type: ignore[arg-type]
    assert "Expected answer type: person (ex:P)" in full and "Known entity types" in full
    off = SagaContext(answer_type_prior=False, persistent_type_state=False)
    bare = str(controller_messages(state, off, {})[0].content)  # type: ignore[arg-type]
    assert "Expected answer type" not in bare and "Known entity types" not in bare


def test_windows_of_the_log_and_the_history() -> None:
    entries = [KnowledgeEntry(step=i, outcome="ok", summary=f"s{i}") for i in range(10)]
    text = knowledge_log_text(entries, 6)
    assert text.splitlines()[0] == "[ok] step 4: s4" and text.splitlines()[-1] == "[ok] step 9: s9"
    assert knowledge_log_text([], 6) == "(nothing yet)"
    steps = [Step(step=i, tool="search", argument=f"a{i}", observation="o", outcome="ok") for i in range(1, 8)]
    shown = history_text(steps, 5)
    assert "Step 2\n" not in shown and "Step 3\n" in shown and shown.count("Action: search(") == 5


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("SELECT ?x WHERE { ?x ?p ?o } LIMIT 5", "SELECT ?x WHERE { ?x ?p ?o }"),
        ("SELECT ?x WHERE { ?x ?p ?o } ORDER BY ?x LIMIT 1", "SELECT ?x WHERE { ?x ?p ?o } ORDER BY ?x LIMIT 1"),
        (
            "SELECT ?x WHERE { { SELECT ?x WHERE { ?x ?p ?o } LIMIT 3 } }",
            "SELECT ?x WHERE { { SELECT ?x WHERE { ?x ?p ?o } LIMIT 3 } }",
        ),
        ('SELECT ?x WHERE { ?x ?p "LIMIT 5" }', 'SELECT ?x WHERE { ?x ?p "LIMIT 5" }'),
        ("SELECT ?x WHERE { ?x ?p ?o } LIMIT 10 OFFSET 2", "SELECT ?x WHERE { ?x ?p ?o } OFFSET 2"),
        ("ASK { ?x ?p ?o }", "ASK { ?x ?p ?o }"),
    ],
)
def test_exploratory_limits_are_removed_and_meaningful_ones_kept(query: str, expected: str) -> None:
    assert without_exploratory_limit(query) == expected


def test_the_final_query_is_the_last_executed_whatever_it_gave() -> None:
    attempts = [
        QueryAttempt(step=1, sparql="a", status="ok", row_count=2),
        QueryAttempt(step=2, sparql="b", status="empty"),
        QueryAttempt(step=3, sparql="c", status="blocked"),
    ]
    assert choose_final_query(attempts) == attempts[2]
    assert choose_final_query(attempts[:2]) == attempts[1]
    assert choose_final_query([]) is None
    # The benchmark policy (an explicit eval option) prefers the last attempt with rows.
    assert choose_final_query(attempts, "last_answering") == attempts[0]
    assert choose_final_query(attempts[1:], "last_answering") == attempts[2]


def test_the_recursion_limit_is_explicit_and_above_the_step_budget() -> None:
    context = SagaContext(max_steps=4)
    config = run_config(context, thread_id="t", tags=["eval"], question_id="q1")
    assert config["recursion_limit"] == recursion_limit(4) < 10007
    assert recursion_limit(4) >= 3 * 4 + 3  # answer type + 3 supersteps per step + last controller + finalize
    assert config["configurable"] == {"thread_id": "t"}
    assert config["tags"] == ["eval"] and config["metadata"] == {"question_id": "q1"}


def test_virtuoso_profile_tells_the_model_about_integer_division() -> None:
    state = {"question": "What share?"}
    virtuoso = str(controller_messages(state, SagaContext(profile="virtuoso"), {})[0].content)  # type: ignore[arg-type]
    assert "1/2 is 0" in virtuoso and "xsd:decimal" in virtuoso
    plain = str(controller_messages(state, SagaContext(), {})[0].content)  # type: ignore[arg-type]
    assert "1/2 is 0" not in plain

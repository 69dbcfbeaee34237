"""Whole-graph trajectories on the CK25 corporate graph (TEXT2SPARQL 2025), driven by a scripted model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.messages import ToolMessage

from saga_kgqa.state import ANSWER_KEY, QueryAttempt
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.agent import open_toolbox, run_agent
from tests.support.scripted_model import answer_type, tool_call

pytestmark = pytest.mark.shared_data

PV = "PREFIX pv: <http://ld.company.org/prod-vocab/>\n"
HOCH = "prodi:empl-Heinrich.Hoch%40company.org"
HOCH_IRI = "<http://ld.company.org/prod-instances/empl-Heinrich.Hoch%40company.org>"
SUPPLIER = "prodi:suppl-0058fc5e-e9e8-46eb-ac6d-673e436a5d7a"
LICENSE = "<http://creativecommons.org/licenses/by/4.0/>"
MANAGER_QUERY = PV + f"SELECT ?m WHERE {{ {HOCH_IRI} pv:hasManager ?m }} LIMIT 5"


@pytest.fixture(scope="module")
def ck25(data_dir: Path) -> Iterator[SagaToolbox]:
    toolbox = open_toolbox([data_dir / "text2sparql_ck25" / "prod-inst.ttl"])
    yield toolbox
    toolbox.graph.close()


def test_answer_type_prior_reaches_the_controller_and_the_answer_is_final(ck25: SagaToolbox) -> None:
    run = run_agent(
        ck25,
        [
            answer_type("person", "pv:Manager"),
            tool_call("lookup", entity=HOCH),
            tool_call("execute", sparql=MANAGER_QUERY),
            tool_call("stop"),
        ],
        question="Who is the manager of Heinrich Hoch?",
    )
    assert "Who is the manager of Heinrich Hoch?" in run.model.prompt_text(0)
    first_controller = run.model.prompt_text(1)
    assert "Expected answer type: person (pv:Manager)" in first_controller
    assert run.model.bound_tools == ["search", "lookup", "examples", "execute", "stop"]
    # The prior biases the lookup: hasManager's range fits it, so it is listed first and marked.
    lookup = run.state["history"][0].observation
    properties = [line for line in lookup.splitlines() if line.startswith("- ")]
    assert properties[0].startswith("- pv:hasManager") and "fits the expected answer type" in properties[0]
    assert run.state["theta"].answer_types() == {"http://ld.company.org/prod-vocab/Manager"}

    output = run.output
    assert output["status"] == "answered"
    # The exploratory LIMIT is gone from the final query, which ran once more.
    assert output["final_sparql"] is not None and "LIMIT" not in output["final_sparql"]
    assert output["answer"].rows == (
        {"m": "http://ld.company.org/prod-instances/empl-Waldtraud.Kuttner%40company.org"},
    )
    assert output["summary"].llm_calls == 4 == run.model.calls
    assert output["summary"].steps == 3 and output["summary"].stop_reason == "stop"


def test_lookup_keeps_a_conflict_the_hierarchy_cannot_confirm(ck25: SagaToolbox) -> None:
    # CK25 never says Supplier ⊑ Agent: the Agent-domain address properties stay, marked not confirmed (issue 13).
    run = run_agent(
        ck25,
        [answer_type("place"), tool_call("lookup", entity=SUPPLIER), tool_call("stop")],
        question="In which country is the supplier Allen-Short?",
    )
    seen = run.model.prompt_text(2)
    listed = [line for line in seen.splitlines() if line.startswith("- ")]
    assert any(line.startswith("- pv:country") for line in listed)
    address = [line for line in listed if "addressCountry" in line]
    assert address and "not confirmed (the types' superclasses are unknown)" in address[0]
    assert "0 properties hidden" in seen
    log = run.state["knowledge_log"]
    assert any(e.outcome == "ok" and "0 hidden by domain" in e.summary for e in log)
    assert any(e.outcome == "info" and "has type pv:Supplier" in e.summary for e in log)
    # No query ran: the model stopped without one.
    assert run.output["status"] == "refused" and run.output["final_sparql"] is None


def test_prune_fallback_on_an_untyped_entity(ck25: SagaToolbox) -> None:
    run = run_agent(
        ck25,
        [
            answer_type("license"),
            tool_call("lookup", entity=LICENSE),
            '{"keep": ["rdfs:label"]}',
            tool_call("stop"),
        ],
        question="What is the label of the dataset's license?",
    )
    prune_prompt = run.model.prompt_text(2)
    assert "choose the properties of the entry" in prune_prompt
    assert "rdfs:label" in prune_prompt and 'Current Question: "What is the label' in prune_prompt
    step = run.state["history"][0]
    assert step.tool == "lookup" and "the model pruned its properties: 1 of 1 kept" in step.observation
    assert run.state.get("prune_request") is None
    assert "the model pruned its properties" in run.model.prompt_text(3)
    assert run.output["summary"].llm_calls == 4


def test_blocked_query_then_recovery(ck25: SagaToolbox) -> None:
    blocked = PV + "SELECT ?h ?m WHERE { ?h a pv:Hardware ; pv:hasManager ?m } LIMIT 3"
    recovered = PV + "SELECT ?h ?pm WHERE { ?h a pv:Hardware ; pv:hasProductManager ?pm } LIMIT 3"
    run = run_agent(
        ck25,
        [
            answer_type("person", "pv:Employee"),
            tool_call("execute", sparql=blocked),
            tool_call("execute", sparql=recovered),
            tool_call("stop"),
        ],
        question="Who manages the hardware products?",
    )
    assert "[BLOCKED] Not run" in run.model.prompt_text(2)
    assert "[fail] BLOCKED step 1: execute: `?h pv:hasManager ?m` conflicts with the domain" in run.model.prompt_text(2)
    assert [a.status for a in run.output["attempts"]] == ["blocked", "ok"]
    assert run.output["status"] == "answered" and run.output["answer"].row_count > 3  # LIMIT removed at the end
    assert "hasProductManager" in (run.output["final_sparql"] or "")


def test_empty_result_comes_with_its_diagnosis(ck25: SagaToolbox) -> None:
    empty = PV + 'SELECT ?e WHERE { ?e a pv:Employee ; pv:name "Karen Brandt" }'
    run = run_agent(
        ck25,
        [answer_type("person"), tool_call("execute", sparql=empty), tool_call("stop"), tool_call("stop")],
        question="Which employee is called Karen Brandt?",
    )
    seen = run.model.prompt_text(2)
    assert "[EMPTY] Result: 0 rows" in seen
    assert 'Diagnosis: The pattern `?e pv:name "Karen Brandt"` matches nothing in the graph.' in seen
    assert '[fail] Empty step 1: execute: The pattern `?e pv:name "Karen Brandt"` matches nothing' in seen
    # The first stop meets the answer check (an empty answer); the second stop on the same query is accepted.
    assert "[check answer_type] the final query returns no rows" in run.model.prompt_text(3)
    # The only query ran empty: it is still the final one, and the run ends empty, saying why.
    assert run.output["answer"].row_count == 0 and run.output["status"] == "empty"
    assert "matches nothing in the graph" in (run.output["outcome"].diagnosis or "")


def test_repeated_action_is_refused_and_not_run_again(ck25: SagaToolbox) -> None:
    run = run_agent(
        ck25,
        [
            answer_type("person"),
            tool_call("execute", sparql=MANAGER_QUERY),
            tool_call("execute", sparql=MANAGER_QUERY.replace(" ", "  ")),
            tool_call("stop"),
        ],
        question="Who is the manager of Heinrich Hoch?",
    )
    history = run.state["history"]
    assert [s.outcome for s in history] == ["ok", "refused"]
    assert "already ran execute" in history[1].observation and "at step 1" in history[1].observation
    assert len(run.state["attempts"]) == 1  # refused, not re-run
    refusal = [m for m in run.state["messages"] if isinstance(m, ToolMessage) and m.status == "error"]
    assert len(refusal) == 1 and refusal[0].tool_call_id == "step-2"
    assert "Refused: you already ran" in run.model.prompt_text(3)


def test_budget_exhaustion_finalizes_and_keeps_every_attempt(ck25: SagaToolbox) -> None:
    queries = [PV + f"SELECT ?x WHERE {{ ?x a pv:{cls} }} LIMIT 2" for cls in ("Manager", "Department", "Supplier")]
    script = [answer_type("thing")] + [tool_call("execute", sparql=q) for q in queries]
    # Scripted forever: a fourth step would have no answer, so reaching it fails the test.
    run = run_agent(ck25, script, question="List things.", max_steps=3)
    output = run.output
    assert output["status"] == "partial" and output["outcome"].reason == "step_budget"
    assert output["summary"].stop_reason == "max_steps" and output["summary"].steps == 3
    assert [a.sparql for a in output["attempts"]] == queries
    assert all(isinstance(a, QueryAttempt) and a.status == "ok" for a in output["attempts"])
    # The best attempt still answers, without its LIMIT: every supplier.
    assert output["final_sparql"] == PV + "SELECT ?x WHERE { ?x a pv:Supplier }"
    assert output["answer"].row_count == 250
    assert run.model.calls == 4


def test_malformed_calls_get_an_error_naming_the_valid_tools(ck25: SagaToolbox) -> None:
    run = run_agent(
        ck25,
        [
            answer_type("person"),
            tool_call("drop_all", target="everything"),
            tool_call("execute", sparql=MANAGER_QUERY, endpoint_url="http://attacker.example/sparql"),
            tool_call("lookup"),
            "I think the answer is Waldtraud.",
            tool_call("stop"),
        ],
        question="Who is the manager of Heinrich Hoch?",
    )
    observations = [s.observation for s in run.state["history"]]
    errors = [m for m in run.state["messages"] if isinstance(m, ToolMessage) and m.status == "error"]
    assert [m.content for m in errors] == observations
    assert all(s.outcome == "refused" for s in run.state["history"]) and len(observations) == 4
    assert observations[0].startswith("Unknown tool 'drop_all'. Valid tools: search(text), lookup(entity)")
    assert "'endpoint_url' is not accepted" in observations[1] and "no URL can be given" in observations[1]
    assert "the argument 'entity' must be a non-empty string" in observations[2]
    assert "Your reply called no tool" in observations[3]
    assert run.state.get("attempts", []) == []  # nothing ran, the URL least of all
    assert run.output["status"] == "refused"


def test_theta_persists_the_answer_prior_key_only_once(ck25: SagaToolbox) -> None:
    run = run_agent(
        ck25,
        [answer_type("person", "pv:Manager"), tool_call("lookup", entity=HOCH), tool_call("stop")],
        question="Who is the manager of Heinrich Hoch?",
    )
    theta = run.state["theta"]
    assert theta.tracked()[0] == ANSWER_KEY
    assert theta.types_of("http://ld.company.org/prod-instances/empl-Heinrich.Hoch%40company.org") == {
        "http://ld.company.org/prod-vocab/Employee"
    }
    assert f"- {HOCH}: pv:Employee" in run.model.prompt_text(2)

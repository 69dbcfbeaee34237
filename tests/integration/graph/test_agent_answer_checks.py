"""The answer checks before stop, in whole runs on CK25 driven by a scripted model (issue 13, point 4).

Each check speaks as an observation when the controller first stops; a second stop on the
same query is accepted; a switched-off check says nothing; nothing is rewritten.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.agent import open_toolbox, run_agent
from tests.support.scripted_model import answer_type, tool_call

pytestmark = pytest.mark.shared_data

PV = "PREFIX pv: <http://ld.company.org/prod-vocab/>\n"
DEPARTMENTS = PV + "SELECT ?d WHERE { ?d a pv:Department }"
HOCH = "<http://ld.company.org/prod-instances/empl-Heinrich.Hoch%40company.org>"


@pytest.fixture(scope="module")
def ck25(data_dir: Path) -> Iterator[SagaToolbox]:
    toolbox = open_toolbox([data_dir / "text2sparql_ck25" / "prod-inst.ttl"])
    yield toolbox
    toolbox.graph.close()


def _check_lines(run_text: str) -> list[str]:
    return [line for line in run_text.splitlines() if "[check " in line]


def test_a_list_for_a_number_meets_the_answer_type_and_question_form_checks(ck25: SagaToolbox) -> None:
    script = [answer_type("number"), tool_call("execute", sparql=DEPARTMENTS), tool_call("stop"), tool_call("stop")]
    run = run_agent(ck25, script, question="How many departments are there?")
    lines = _check_lines(run.model.prompt_text(3))
    assert any("[check answer_type] the results are entities; the expected answer is a number" in x for x in lines)
    assert any("[check question_form] the question asks how many" in x for x in lines)
    # Observations only: the answer is the query as written, and the second stop is accepted.
    assert run.output["final_sparql"] == DEPARTMENTS and run.output["status"] == "answered"
    assert run.output["answer"].row_count == 6


def test_a_stop_the_checks_send_back_is_counted_flagged_never_refused(ck25: SagaToolbox) -> None:
    # saga ask --json said summary.outcomes {"ok": 1, "refused": 1} for this run: the checks' findings read as
    # a refusal (of the run, or by the guard), though nothing was refused and the run answered.
    script = [answer_type("number"), tool_call("execute", sparql=DEPARTMENTS), tool_call("stop"), tool_call("stop")]
    run = run_agent(ck25, script, question="How many departments are there?")
    assert run.output["status"] == "answered"
    assert [(s.tool, s.outcome) for s in run.state["history"]] == [("execute", "ok"), ("stop", "flagged")]
    assert run.output["summary"].outcomes == {"ok": 1, "flagged": 1}
    # The controller still sees the findings, tagged as what they are.
    assert "[check] flagged step 2: answer checks:" in run.model.prompt_text(3)


def test_a_select_for_a_yes_no_question_meets_the_question_form_check(ck25: SagaToolbox) -> None:
    script = [answer_type("entity"), tool_call("execute", sparql=DEPARTMENTS), tool_call("stop"), tool_call("stop")]
    run = run_agent(ck25, script, question="Is there a department?")
    assert any("[check question_form] the question asks yes or no" in x for x in _check_lines(run.model.prompt_text(3)))


def test_an_iri_no_observation_showed_and_the_graph_lacks_meets_know_before_use(ck25: SagaToolbox) -> None:
    # Optional, so the query runs (a required pattern matching nothing would be blocked before it ran).
    invented = PV + f"SELECT ?m ?s WHERE {{ {HOCH} pv:hasManager ?m OPTIONAL {{ ?m pv:supplier ?s }} }}"
    script = [answer_type("entity"), tool_call("execute", sparql=invented), tool_call("stop"), tool_call("stop")]
    run = run_agent(ck25, script, question="Who supplies Heinrich Hoch?")
    lines = _check_lines(run.model.prompt_text(3))
    assert any(x.startswith("[check know_before_use] supplier appeared in no observation") for x in lines)
    assert not any("empl-Heinrich" in x for x in lines)  # it is in the graph: not invented


def test_a_query_unrelated_to_the_run_meets_the_consistency_check(ck25: SagaToolbox) -> None:
    script = [
        answer_type("entity"),
        tool_call("search", text="Heinrich Hoch"),
        tool_call("execute", sparql=DEPARTMENTS),
        tool_call("stop"),
        tool_call("stop"),
    ]
    run = run_agent(ck25, script, question="Who is Heinrich Hoch's manager?")
    assert any("[check consistency]" in x for x in _check_lines(run.model.prompt_text(4)))


def test_every_check_is_a_switch(ck25: SagaToolbox) -> None:
    script = [answer_type("number"), tool_call("execute", sparql=DEPARTMENTS), tool_call("stop")]
    run = run_agent(
        ck25,
        script,
        question="How many departments are there?",
        check_answer_type=False,
        check_question_form=False,
        check_know_before_use=False,
        check_consistency=False,
    )
    assert run.output["status"] == "answered" and run.model.calls == 3
    assert not any(s.outcome == "flagged" for s in run.state["history"])


def test_ids_for_a_name_question_after_an_empty_dependent_step_meet_the_checks(ck25: SagaToolbox) -> None:
    # Issue 22, point 4: the second query (the dependent step) comes back empty, so the answer would be
    # the first query's department ids for a question asking for names.
    ids = PV + "SELECT ?id WHERE { ?d a pv:Department ; pv:id ?id }"
    dependent = PV + (
        'SELECT ?n WHERE { ?d pv:id "22183" ; pv:responsibleFor ?h . ?h pv:hasSupplier ?s . '
        '?s pv:addressCountry "Atlantis" ; pv:name ?n }'
    )
    script = [
        answer_type("name"),
        tool_call("execute", sparql=ids),
        tool_call("execute", sparql=dependent),
        tool_call("stop"),
        tool_call("stop"),
    ]
    question = "Which suppliers from Atlantis serve the Product Management department?"
    # Issue 37: the final query is the last one executed, so the run ends empty on the dependent step.
    run = run_agent(ck25, script, question=question)
    assert [a.status for a in run.state["attempts"]] == ["ok", "empty"]
    assert run.output["status"] == "empty" and run.output["final_sparql"] == dependent
    assert run.output["outcome"].earlier is not None and run.output["outcome"].earlier.sparql == ids
    # The benchmark policy answering with the last query with rows still meets the checks.
    run = run_agent(ck25, script, question=question, final_query="last_answering")
    lines = _check_lines(run.model.prompt_text(4))
    assert any(x.startswith("[check answer_type] the results are numbers") for x in lines)
    assert any(x.startswith("[check dependent_step]") and "step 2" in x for x in lines)
    # An observation only: the second stop is accepted and nothing is rewritten.
    assert run.output["status"] == "answered" and run.output["final_sparql"] == ids

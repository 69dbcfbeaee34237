"""Each switch of the context changes what the model is shown (asserted on the captured prompts).

One trajectory on CK25 (lookup a supplier, run a query with a domain conflict, look up an
untyped entity, stop) runs with the defaults and with each switch flipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from saga_kgqa.state import ANSWER_KEY
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.agent import AgentRun, open_toolbox, run_agent
from tests.support.scripted_model import answer_type, tool_call

pytestmark = pytest.mark.shared_data

SUPPLIER = "prodi:suppl-0058fc5e-e9e8-46eb-ac6d-673e436a5d7a"
LICENSE = "<http://creativecommons.org/licenses/by/4.0/>"
CONFLICT = (
    "PREFIX pv: <http://ld.company.org/prod-vocab/>\nSELECT ?h ?m WHERE { ?h a pv:Hardware ; pv:hasManager ?m } LIMIT 3"
)


@pytest.fixture(scope="module")
def ck25(data_dir: Path) -> Iterator[SagaToolbox]:
    toolbox = open_toolbox([data_dir / "text2sparql_ck25" / "prod-inst.ttl"])
    yield toolbox
    toolbox.graph.close()


def trajectory(toolbox: SagaToolbox, **switches: Any) -> AgentRun:
    script: list[Any] = []
    if switches.get("answer_type_prior", True):
        script.append(answer_type("place", "dbo:Country"))
    script += [tool_call("lookup", entity=SUPPLIER), tool_call("execute", sparql=CONFLICT)]
    script.append(tool_call("lookup", entity=LICENSE))
    if switches.get("prune_fallback", True):
        script.append('{"keep": ["rdfs:label"]}')
    script.append(tool_call("stop"))
    # The answer checks are tested in test_agent_answer_checks.py; one scripted stop per run here.
    checks = {f"check_{name}": False for name in ("answer_type", "question_form", "know_before_use", "consistency")}
    return run_agent(
        toolbox, script, question="In which country is the supplier Allen-Short?", **{**checks, **switches}
    )


def listed(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- ")]


@pytest.fixture(scope="module")
def baseline(ck25: SagaToolbox) -> AgentRun:
    return trajectory(ck25)


def test_baseline_shows_filtering_blocking_prior_types_and_pruning(baseline: AgentRun) -> None:
    prompts = baseline.model.all_prompts()
    assert baseline.model.calls == 6
    assert "Expected answer type: place" in prompts
    # CK25 never says Supplier ⊑ Agent: the Agent-domain address properties stay, not confirmed (issue 13).
    assert "0 properties hidden" in prompts
    assert any("addressCountry" in line and "not confirmed" in line for line in listed(prompts))
    assert "[BLOCKED] Not run" in prompts
    assert "Known entity types (from explored entities):" in prompts
    assert "(latest: prodi:suppl-0058fc5e-e9e8-46eb-ac6d-673e436a5d7a has type pv:Supplier)" in prompts
    assert "the model pruned its properties" in prompts
    assert "over the knowledge graph" in prompts


def test_type_filter_off_shows_hidden_properties_and_runs_the_conflict(ck25: SagaToolbox, baseline: AgentRun) -> None:
    run = trajectory(ck25, type_filter=False)
    prompts = run.model.all_prompts()
    assert any(line.startswith("- pv:addressCountry") for line in listed(prompts))
    assert "properties hidden (subclass check)" not in prompts
    assert "[BLOCKED] Not run" not in prompts
    assert [a.status for a in run.output["attempts"]] == ["empty"]
    assert [a.status for a in baseline.output["attempts"]] == ["blocked"]


def test_schema_coverage_zero_masks_the_formal_domains(ck25: SagaToolbox) -> None:
    run = trajectory(ck25, schema_coverage=0.0, coverage_seed=7)
    prompts = run.model.all_prompts()
    assert any(line.startswith("- pv:addressCountry") for line in listed(prompts))
    assert "[BLOCKED] Not run" not in prompts


def test_persistent_type_state_off_hides_theta_from_the_controller(ck25: SagaToolbox) -> None:
    run = trajectory(ck25, persistent_type_state=False)
    prompts = run.model.all_prompts()
    assert "Known entity types" not in prompts
    assert "[info]" not in prompts.replace("[info] = entity type discovered", "")
    assert "Expected answer type: place" in prompts
    assert run.state["theta"].tracked() == (ANSWER_KEY,)  # only the prior: no lookup or result evidence


def test_answer_type_prior_off_skips_the_prediction(ck25: SagaToolbox, baseline: AgentRun) -> None:
    run = trajectory(ck25, answer_type_prior=False)
    assert run.model.calls == baseline.model.calls - 1
    assert "identify the expected answer type" not in run.model.all_prompts()
    assert "Expected answer type" not in run.model.all_prompts()
    assert "identify the expected answer type" in baseline.model.prompt_text(0)
    assert run.state.get("answer_type") is None


def test_prune_fallback_off_shows_the_raw_neighbourhood(ck25: SagaToolbox) -> None:
    run = trajectory(ck25, prune_fallback=False)
    prompts = run.model.all_prompts()
    assert run.model.calls == 5
    assert "choose the properties of the entry" not in prompts
    assert "no type is known, so none was filtered" in prompts
    assert "the model pruned its properties" not in prompts


@pytest.mark.parametrize(
    ("dialect", "wording"),
    [("wikidata", "Entities are written as QIDs (wd:Q42)"), ("freebase", "Entities are written as MIDs")],
)
def test_dialect_changes_the_wording(ck25: SagaToolbox, dialect: str, wording: str) -> None:
    run = trajectory(ck25, dialect=dialect)
    prompts = run.model.all_prompts()
    assert wording in prompts
    assert "over the knowledge graph" not in prompts


def test_exact_matching_hides_what_the_subclass_check_keeps(ck25: SagaToolbox) -> None:
    manager = "prodi:empl-Waldtraud.Kuttner%40company.org"
    script = [answer_type("person"), tool_call("lookup", entity=manager), tool_call("stop")]
    subclass = run_agent(ck25, script, question="Who manages Waldtraud Kuttner?")
    exact = run_agent(ck25, script, question="Who manages Waldtraud Kuttner?", matching="exact")
    assert "hidden (exact check)" not in subclass.model.prompt_text(2)
    assert "3 properties hidden (exact check), domain conflicts with the types above" in exact.model.prompt_text(2)
    assert len(listed(exact.model.prompt_text(2))) < len(listed(subclass.model.prompt_text(2)))

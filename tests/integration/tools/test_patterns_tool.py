"""SAGA's ``patterns(entity)`` tool on CK25: switchable (lookup, patterns, both), type-filtered like lookup."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.config.context import SagaContext
from saga_kgqa.tools.context import ToolCaps
from saga_kgqa.tools.lookup.hiding import HideSettings
from saga_kgqa.tools.patterns.ranking import DegreeRanking
from saga_kgqa.tools.patterns.tool import patterns_tool
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.agent import open_toolbox, run_agent
from tests.support.grounding import tool_view
from tests.support.scripted_model import answer_type, tool_call

pytestmark = pytest.mark.shared_data

PV = "http://ld.company.org/prod-vocab/"
HOCH = "prodi:empl-Heinrich.Hoch%40company.org"
QUERY = (
    "PREFIX pv: <http://ld.company.org/prod-vocab/>\n"
    "SELECT ?m WHERE { <http://ld.company.org/prod-instances/empl-Heinrich.Hoch%40company.org> pv:hasManager ?m }"
)
QUESTION = "Who is the manager of Heinrich Hoch?"


@pytest.fixture(scope="module")
def ck25(data_dir: Path) -> Iterator[SagaToolbox]:
    toolbox = open_toolbox([data_dir / "text2sparql_ck25" / "prod-inst.ttl"])
    yield toolbox
    toolbox.graph.close()


def test_both_tools_offer_patterns_ranked_for_the_question(ck25: SagaToolbox) -> None:
    script = [
        answer_type("person"),
        tool_call("patterns", entity=HOCH),
        tool_call("execute", sparql=QUERY),
        tool_call("stop"),
    ]
    run = run_agent(ck25, script, question=QUESTION, grounding_tools="both")
    assert run.model.bound_tools == ["search", "lookup", "patterns", "examples", "execute", "stop"]
    assert "- patterns(entity):" in run.model.prompt_text(1) and "- lookup(entity):" in run.model.prompt_text(1)
    observation = run.state["history"][0].observation
    assert observation.startswith("Patterns of prodi:empl-Heinrich.Hoch%40company.org ranked for the question")
    first = observation.splitlines()[1]
    assert first.startswith("[1] ") and "(pv:hasManager)" in first  # MiniLM puts the manager first
    assert "?subject 'has product manager' (pv:hasProductManager)" in observation  # incoming patterns too
    assert run.output["status"] == "answered"


def test_switch_offers_lookup_only_or_patterns_only(ck25: SagaToolbox) -> None:
    lookup_only = run_agent(
        ck25,
        [answer_type("person"), tool_call("patterns", entity=HOCH), tool_call("stop")],
        question=QUESTION,
    )
    assert "patterns" not in lookup_only.model.bound_tools
    assert "- patterns(entity):" not in lookup_only.model.prompt_text(1)
    refused = lookup_only.state["history"][0]
    assert refused.outcome == "refused" and "switched off" in refused.observation
    patterns_only = run_agent(
        ck25,
        [answer_type("person"), tool_call("lookup", entity=HOCH), tool_call("stop")],
        question=QUESTION,
        grounding_tools="patterns",
    )
    assert patterns_only.model.bound_tools == ["search", "patterns", "examples", "execute", "stop"]
    assert "- lookup(entity):" not in patterns_only.model.prompt_text(1)
    assert patterns_only.state["history"][0].outcome == "refused"


def test_patterns_hide_what_lookup_hides(ck25: SagaToolbox) -> None:
    # Give hasManager a domain that excludes employees: lookup and patterns must both hide it.
    view = ck25.view(SagaContext())
    schema = view.context.schema
    entry = schema.properties[PV + "hasManager"].model_copy(update={"domain": frozenset({PV + "Product"})})
    changed = schema.model_copy(update={"properties": {**schema.properties, PV + "hasManager": entry}})
    # Sampled employees do use hasManager, which lookup reads as an observed domain member and keeps
    # (tools.hiding); an unreachable support makes the fabricated conflict one the schema confirms.
    caps = ToolCaps(hide=HideSettings(min_users=10**6))
    kit = tool_view(ck25.graph, changed, prefixes=view.prefixes, caps=caps)
    lookup = kit.lookup(HOCH)
    result = patterns_tool(kit.context, HOCH, question=QUESTION, ranking=DegreeRanking())
    lookup_hidden = {hidden.info.property.iri for hidden in lookup.hidden}
    assert PV + "hasManager" in lookup_hidden
    hidden_out = {p.prop for p in result.hidden if p.direction == "out"}
    assert hidden_out == lookup_hidden
    # With the observation on (the default), both keep it: patterns follow lookup's rule, not a copy of it.
    observing = tool_view(ck25.graph, changed, prefixes=view.prefixes)
    assert not observing.lookup(HOCH).hidden
    kept = patterns_tool(observing.context, HOCH, question=QUESTION, ranking=DegreeRanking())
    assert PV + "hasManager" in {p.prop for p in kept.shown if p.direction == "out"}
    assert PV + "hasManager" not in {p.prop for p in result.shown if p.direction == "out"}
    assert "hidden: their domain or range conflicts" in result.text
    unfiltered = patterns_tool(kit.context, HOCH, question=QUESTION, ranking=DegreeRanking(), type_filter=False)
    assert PV + "hasManager" in {p.prop for p in unfiltered.shown}

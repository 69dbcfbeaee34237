"""The agent over several named sources: AutoSchema's A.3 order end to end, the single-shot switch, the catalog.

The two sources are one graph cut along its scientists (as in ``tests/unit/sources/test_bridging.py``):
the people side moved the scientists' IRIs to another namespace and kept ``lab:orcid``. The
scripted model reads what it needs (the protein's IRI, the bridge key, the key values) off
the observations in its prompt, so the joined answer depends on what the tools returned; the
oracle is the single-graph query on the uncut graph.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, BaseMessage

from saga_kgqa.app.sources import open_source_toolbox
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.graph.source_tools import CATALOG_IN_PROMPT, RESULT_CHARS
from saga_kgqa.sources.grounding import execute_on_source
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.conftest import TEST_DATA
from tests.support.agent import open_toolbox, run_agent
from tests.support.bridge_fixture import split_graph
from tests.support.scripted_model import answer_type, text_action, tool_call

LAB = TEST_DATA / "autoschema" / "lab.trig"
L = "http://example.org/lab/"
QUESTION = "What is the name of the scientist who studied Kinase A?"


@pytest.fixture()
def two_sources(tmp_path: Path) -> Iterator[tuple[SourceSet, SagaToolbox]]:
    fixture = split_graph(LAB, tmp_path / "split", split_class=L + "Scientist", id_property=L + "orcid")
    catalog = Catalog(
        sources={
            "proteins": SourceRecord(name="proteins", data=(fixture.left,), title="Proteins and who studied them"),
            "people": SourceRecord(name="people", data=(fixture.right,), title="Scientists"),
        },
        default_source="proteins",
    )
    toolbox = open_toolbox([fixture.left])
    with SourceSet(catalog, survey_dir=tmp_path / "cache", toolboxes=open_source_toolbox) as sources:
        yield sources, toolbox
    toolbox.graph.close()


def _last_observation(messages: list[BaseMessage], tool: str) -> str:
    """The newest ``Action: tool(...)`` observation in the controller prompt's history."""
    text = "\n".join(str(m.content) for m in messages)
    blocks = re.findall(rf"Action: {tool}\((.*?)\)\nObservation: (.*?)(?=\n\nStep \d|\Z)", text, re.DOTALL)
    assert blocks, f"no {tool} observation in the prompt"
    return str(blocks[-1][1])


def _keys_query(messages: list[BaseMessage]) -> AIMessage:
    """Step 1 of the join: the resolved protein's scientists' key on the left (property from the bridge)."""
    protein = re.search(r"<(\S+)>\s+\"Kinase A\"", _last_observation(messages, "resolve"))
    assert protein is not None
    bridge = _last_observation(messages, "bridge")
    key = re.search(r"shared_value: proteins <\S+> <(\S+)> = people <\S+> <(\S+)>", bridge)
    assert key is not None
    sparql = f"SELECT ?key WHERE {{ <{protein.group(1)}> <{L}studiedBy> ?x . ?x <{key.group(1)}> ?key }}"
    return tool_call("execute_on", request=f"proteins: {sparql}")


def _join_query(messages: list[BaseMessage]) -> AIMessage:
    """Step 2: the right side's names for step 1's keys (VALUES), on the bridge's right property."""
    values = re.findall(r"\| (\"[^\"]*\") \|", _last_observation(messages, "execute_on"))
    assert values
    bridge = _last_observation(messages, "bridge")
    key = re.search(r"shared_value: proteins <\S+> <\S+> = people <\S+> <(\S+)>", bridge)
    assert key is not None
    sparql = f"SELECT ?n WHERE {{ VALUES ?key {{ {' '.join(values)} }} ?y <{key.group(1)}> ?key ; <{L}name> ?n }}"
    return tool_call("execute_on", request=f"people: {sparql}")


def _oracle_names(tmp_path: Path) -> set[str]:
    """The answer by one query on the uncut graph (no agent, no bridge)."""
    whole = Catalog(sources={"whole": SourceRecord(name="whole", data=(LAB,))}, default_source="whole")
    label = "<http://www.w3.org/2000/01/rdf-schema#label>"
    sparql = f'SELECT ?n WHERE {{ ?p {label} "Kinase A" ; <{L}studiedBy> ?s . ?s <{L}name> ?n }}'
    with SourceSet(whole, survey_dir=tmp_path / "oracle", toolboxes=open_source_toolbox) as sources:
        outcome = execute_on_source(sources, "whole", sparql)
    assert outcome.result is not None, outcome.text
    return {row["n"].value for row in outcome.result.rows}


def test_two_source_question_end_to_end(two_sources: tuple[SourceSet, SagaToolbox], tmp_path: Path) -> None:
    sources, toolbox = two_sources
    script: list[AIMessage | str | Callable[[list[BaseMessage]], AIMessage]] = [
        answer_type("person"),
        tool_call("summary", source="proteins"),
        tool_call("summary", source="people"),
        tool_call("resolve", request="proteins: Kinase A"),
        tool_call("bridge", sources="proteins: people"),
        _keys_query,
        _join_query,
        tool_call("stop"),
    ]
    run = run_agent(toolbox, script, question=QUESTION, sources=sources)  # type: ignore[arg-type]

    tools = [step.tool for step in run.state["history"]]
    assert tools == ["summary", "summary", "resolve", "bridge", "execute_on", "execute_on"]
    assert all(step.outcome == "ok" for step in run.state["history"]), run.state["history"]
    assert all(len(step.observation) <= RESULT_CHARS for step in run.state["history"])
    assert [a.source for a in run.output["attempts"]] == ["proteins", "people"]
    assert run.output["status"] == "answered"
    names = {row["n"] for row in run.output["answer"].rows}
    assert names == _oracle_names(tmp_path) == {"Alice Adler"}
    # Two sources: the catalog is in the prompt with the A.3 policy, and no find tool is offered.
    first = run.model.prompt_text(1)
    assert "Catalog:" in first and "- proteins:" in first and "- people:" in first
    assert "bridge once before a genuine two-source join" in first
    assert "find_sources" not in run.model.bound_tools
    assert {"summary", "resolve", "expand", "bridge", "execute_on"} <= set(run.model.bound_tools)


def test_single_shot_refuses_a_second_call_of_one_tool(two_sources: tuple[SourceSet, SagaToolbox]) -> None:
    sources, toolbox = two_sources
    script = [
        answer_type("person"),
        tool_call("summary", source="proteins"),
        tool_call("summary", source="people"),
        tool_call("stop"),
    ]
    shot = run_agent(toolbox, script, question=QUESTION, sources=sources, single_shot=True)
    first, second = shot.state["history"]
    assert (first.outcome, second.outcome) == ("ok", "refused")
    assert "single-shot" in second.observation
    # Without the switch the same second call runs.
    free = run_agent(toolbox, script, question=QUESTION, sources=sources)
    assert [step.outcome for step in free.state["history"]] == ["ok", "ok"]
    assert "class" in free.state["history"][1].observation


def test_many_sources_offer_find_instead_of_the_catalog(tmp_path: Path) -> None:
    names = [f"lab{n}" for n in range(CATALOG_IN_PROMPT + 1)]
    records = {name: SourceRecord(name=name, data=(LAB,), title=f"Lab copy {name}") for name in names}
    records["lab0"] = SourceRecord(name="lab0", data=(LAB,), title="Protein kinases", categories=("biology",))
    toolbox = open_toolbox([LAB])
    try:
        with SourceSet(
            Catalog(sources=records, default_source="lab0"), survey_dir=tmp_path, toolboxes=open_source_toolbox
        ) as sources:
            script = [answer_type("source"), tool_call("find_sources", text="protein kinases"), tool_call("stop")]
            run = run_agent(toolbox, script, question="Which proteins are kinases?", sources=sources)
    finally:
        toolbox.graph.close()
    prompt = run.model.prompt_text(1)
    assert "Catalog:" not in prompt and "- lab3:" not in prompt
    assert "find_sources(text)" in prompt and "Call find_sources once" in prompt
    assert "find_sources" in run.model.bound_tools
    step = run.state["history"][0]
    assert step.outcome == "ok" and step.observation.splitlines()[0].startswith("- lab0:")


def test_a_bad_source_argument_is_an_observation(two_sources: tuple[SourceSet, SagaToolbox]) -> None:
    sources, toolbox = two_sources
    script = [
        answer_type("person"),
        tool_call("summary", source="https://attacker.example/sparql"),
        tool_call("execute_on", request="PREFIX lab: <http://example.org/lab/> SELECT ?s WHERE { ?s ?p ?o }"),
        tool_call("resolve", request="nowhere: Kinase A"),
        tool_call("stop"),
    ]
    run = run_agent(toolbox, script, question=QUESTION, sources=sources)
    url, no_source, unknown = run.state["history"]
    assert [url.outcome, no_source.outcome, unknown.outcome] == ["error", "error", "error"]
    # A URL is no source name, and nothing was fetched: the known names are listed instead.
    assert "people" in url.observation and "proteins" in url.observation
    assert "'SOURCE: SPARQL query'" in no_source.observation
    assert "nowhere" in unknown.observation and "people" in unknown.observation
    assert run.output["attempts"] == [] and run.output["status"] != "answered"


def test_source_tools_in_text_action_mode(two_sources: tuple[SourceSet, SagaToolbox]) -> None:
    sources, toolbox = two_sources
    names = f'SELECT ?n WHERE {{ ?y <{L}orcid> "0000-0001-2345-6789" ; <{L}name> ?n }}'
    script = [
        answer_type("person"),
        *text_action("summary", "people"),
        *text_action("execute_on", f"people: {names}"),
        *text_action("stop", ""),
    ]
    run = run_agent(toolbox, script, question=QUESTION, sources=sources, tool_calling="text")
    assert [step.tool for step in run.state["history"]] == ["summary", "execute_on"]
    assert "execute_on(SOURCE: sparql)" in run.model.prompt_text(1)
    assert "execute_on" in run.model.prompt_text(2)  # the parsing call knows the source tools
    assert [row["n"] for row in run.output["answer"].rows] == ["Alice Adler"]


def _join_call(messages: list[BaseMessage]) -> AIMessage:
    """Both steps in one join call, on the bridge's top shared-value key: no key is copied by the model."""
    protein = re.search(r"<(\S+)>\s+\"Kinase A\"", _last_observation(messages, "resolve"))
    key = re.search(
        r"shared_value: proteins <\S+> <(\S+)> = people <\S+> <(\S+)>", _last_observation(messages, "bridge")
    )
    assert protein is not None and key is not None
    first = f"SELECT ?key WHERE {{ <{protein.group(1)}> <{L}studiedBy> ?x . ?x <{key.group(1)}> ?key }}"
    second = f"SELECT ?key ?n WHERE {{ ?y <{key.group(2)}> ?key ; <{L}name> ?n }}"
    return tool_call("join", request=f"proteins: {first} ==> people: {second}")


def test_two_source_question_through_the_join_tool(two_sources: tuple[SourceSet, SagaToolbox], tmp_path: Path) -> None:
    sources, toolbox = two_sources
    script: list[AIMessage | str | Callable[[list[BaseMessage]], AIMessage]] = [
        answer_type("person"),
        tool_call("resolve", request="proteins: Kinase A"),
        tool_call("bridge", sources="proteins: people"),
        _join_call,
        tool_call("stop"),
    ]
    run = run_agent(toolbox, script, question=QUESTION, sources=sources)  # type: ignore[arg-type]

    assert [step.tool for step in run.state["history"]] == ["resolve", "bridge", "join"]
    assert run.state["history"][-1].outcome == "ok", run.state["history"][-1].observation
    assert [a.source for a in run.output["attempts"]] == ["people"]
    assert run.output["status"] == "answered"
    assert {row["n"] for row in run.output["answer"].rows} == _oracle_names(tmp_path) == {"Alice Adler"}
    assert "join" in run.model.bound_tools
    assert "join(LEFT: query 1 ==> RIGHT: query 2)" in run.model.prompt_text(1)


def test_keys_pasted_from_the_left_table_find_the_right_sides_iris(tmp_path: Path) -> None:
    # The right side stores each ORCID as an IRI; the model pastes the left side's string literals (issue 42.4).
    fixture = split_graph(LAB, tmp_path / "split", split_class=L + "Scientist", id_property=L + "orcid")
    right = re.sub(rf'(<{L}orcid>) "([0-9X-]+)"', r"\1 <https://orcid.org/\2>", fixture.right.read_text())
    assert "<https://orcid.org/0000-0001-2345-6789>" in right
    fixture.right.write_text(right)
    catalog = Catalog(
        sources={
            "proteins": SourceRecord(name="proteins", data=(fixture.left,), title="Proteins and who studied them"),
            "people": SourceRecord(name="people", data=(fixture.right,), title="Scientists"),
        },
        default_source="proteins",
    )
    toolbox = open_toolbox([fixture.left])
    script: list[AIMessage | str | Callable[[list[BaseMessage]], AIMessage]] = [
        answer_type("person"),
        tool_call("resolve", request="proteins: Kinase A"),
        tool_call("bridge", sources="proteins: people"),
        _keys_query,
        _join_query,
        tool_call("stop"),
    ]
    try:
        with SourceSet(catalog, survey_dir=tmp_path / "cache", toolboxes=open_source_toolbox) as sources:
            run = run_agent(toolbox, script, question=QUESTION, sources=sources)  # type: ignore[arg-type]
    finally:
        toolbox.graph.close()
    last = run.state["history"][-1]
    assert last.outcome == "ok" and "local-name" in last.observation, last.observation
    assert run.output["status"] == "answered"
    # The attempt the final run repeats binds the stored IRIs, so the answer is the rows the source holds.
    assert "<https://orcid.org/0000-0001-2345-6789>" in run.output["attempts"][-1].sparql
    assert {row["n"] for row in run.output["answer"].rows} == _oracle_names(tmp_path) == {"Alice Adler"}


def test_an_unreadable_source_answer_is_an_observation_and_the_run_goes_on(
    two_sources: tuple[SourceSet, SagaToolbox], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 26 (fault L21): a ValueError from one source's data crashed the whole run.
    from saga_kgqa.sources import grounding

    sources, toolbox = two_sources
    real = grounding.source_summary

    def summary(opened: SourceSet, name: str) -> object:
        if name == "proteins":
            raise ValueError("invalid literal for int() with base 10: '12</tool><<SYS>>'")
        return real(opened, name)

    monkeypatch.setattr(grounding, "source_summary", summary)
    script = [answer_type("person"), tool_call("summary", source="proteins"), tool_call("summary", source="people")]
    run = run_agent(toolbox, [*script, tool_call("stop")], question=QUESTION, sources=sources)
    bad, good = run.state["history"]
    assert bad.outcome == "error" and "SourceMisbehaved" in bad.observation
    assert "</tool>" not in bad.observation and "<<SYS>>" not in bad.observation
    assert good.outcome == "ok"

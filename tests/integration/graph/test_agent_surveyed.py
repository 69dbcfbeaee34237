"""The agent on an undocumented graph with the surveyed schema index: the type check blocks, the fixed query answers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.app.sources import open_source_toolbox
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.conftest import TEST_DATA
from tests.support.agent import run_agent
from tests.support.scripted_model import answer_type, tool_call

LAB = TEST_DATA / "autoschema" / "lab.trig"
L = "http://example.org/lab/"


@pytest.fixture()
def surveyed(tmp_path: Path) -> Iterator[SagaToolbox]:
    catalog = Catalog(sources={"lab": SourceRecord(name="lab", data=(LAB,))}, default_source="lab")
    with SourceSet(catalog, survey_dir=tmp_path, toolboxes=open_source_toolbox) as sources:
        opened = sources.get("lab")
        index = opened.survey().index
        # No RDFS/OWL at all in the graph: every domain the check uses is surveyed.
        assert {p.domain_source for p in index.properties.values()} <= {"surveyed", "none"}
        yield SagaToolbox(opened.graph, index, prefixes={"lab": L})


def test_surveyed_schema_blocks_a_type_inconsistent_query_in_the_agent(surveyed: SagaToolbox) -> None:
    wrong = f"SELECT ?i WHERE {{ ?p a <{L}Protein> ; <{L}worksAt> ?i }}"
    right = f"SELECT ?i WHERE {{ <{L}p1> <{L}studiedBy> ?s . ?s <{L}worksAt> ?i }}"
    run = run_agent(
        surveyed,
        [
            answer_type("institute"),
            tool_call("execute", sparql=wrong),
            tool_call("execute", sparql=right),
            tool_call("stop"),
        ],
        question="Where does the scientist who studied Kinase A work?",
    )
    assert [a.status for a in run.output["attempts"]] == ["blocked", "ok"]
    assert "domain surveyed" in run.state["history"][0].observation
    assert run.output["status"] == "answered"
    assert run.output["answer"].rows == ({"i": f"{L}inst1"},)

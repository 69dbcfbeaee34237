"""Bridging two sources cut from one graph; the two-step plan reproduces the single-graph answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.app.sources import open_source_toolbox
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.errors import ToolInputError
from saga_kgqa.kg.guard.sparql_terms import string_literal
from saga_kgqa.sources.grounding import bridge_sources, execute_on_source
from saga_kgqa.sources.session import SourceSet
from tests.conftest import TEST_DATA
from tests.support.bridge_fixture import BridgeFixture, split_graph

LAB = TEST_DATA / "autoschema" / "lab.trig"
L = "http://example.org/lab/"


@pytest.fixture()
def split(tmp_path: Path) -> Iterator[tuple[SourceSet, BridgeFixture]]:
    fixture = split_graph(LAB, tmp_path / "split", split_class=L + "Scientist", id_property=L + "orcid")
    catalog = Catalog(
        sources={
            "proteins": SourceRecord(name="proteins", data=(fixture.left,)),
            "people": SourceRecord(name="people", data=(fixture.right,)),
            "whole": SourceRecord(name="whole", data=(LAB,)),
        },
        default_source="whole",
    )
    with SourceSet(catalog, survey_dir=tmp_path / "cache", toolboxes=open_source_toolbox) as sources:
        yield sources, fixture


def test_the_shared_identifier_is_found_and_iris_rank_first(split: tuple[SourceSet, BridgeFixture]) -> None:
    sources, _fixture = split
    result = bridge_sources(sources, "proteins", "people")
    # Institutes stayed on the left and the moved scientists still point at them: same IRIs, strongest.
    assert (result.candidates[0].kind, result.candidates[0].left_class) == ("same_iri", L + "Institute")
    top = next(c for c in result.candidates if c.kind == "shared_value")
    assert (top.kind, top.left_class, top.left_property, top.right_property) == (
        "shared_value",
        L + "Scientist",
        L + "orcid",
        L + "orcid",
    )
    assert top.evidence == 2
    assert [step.source for step in top.plan] == ["proteins", "people"]
    # No IRI of a scientist is shared: the right side moved them to another namespace.
    assert all(c.kind != "same_iri" or c.left_class != L + "Scientist" for c in result.candidates)
    assert "run and inspect before use" in result.text


def test_a_bridge_from_a_source_to_itself_is_a_typed_input_error(split: tuple[SourceSet, BridgeFixture]) -> None:
    # The CLI bridged a source with itself (same_iri candidates of every class) while MCP refused it.
    sources, _fixture = split
    with pytest.raises(ToolInputError, match=r"left and right name the same source \(whole\)"):
        bridge_sources(sources, "whole", "whole")


def test_same_iris_are_the_strongest_bridge(tmp_path: Path) -> None:
    catalog = Catalog(
        sources={"a": SourceRecord(name="a", data=(LAB,)), "b": SourceRecord(name="b", data=(LAB,))},
        default_source="a",
    )
    with SourceSet(catalog, survey_dir=tmp_path) as sources:
        result = bridge_sources(sources, "a", "b")
    assert result.candidates[0].kind == "same_iri"
    assert result.candidates[0].evidence > 0


def test_two_step_plan_reproduces_the_single_graph_answer(split: tuple[SourceSet, BridgeFixture]) -> None:
    sources, _fixture = split
    whole = execute_on_source(sources, "whole", f"SELECT ?n WHERE {{ <{L}p1> <{L}studiedBy> ?s . ?s <{L}name> ?n }}")
    top = next(c for c in bridge_sources(sources, "proteins", "people").candidates if c.kind == "shared_value")
    keys = execute_on_source(
        sources,
        "proteins",
        f"SELECT ?key WHERE {{ <{L}p1> <{L}studiedBy> ?x . ?x <{top.left_property}> ?key }}",
    )
    assert keys.status == "ok" and keys.result is not None
    values = " ".join(string_literal(row["key"].value) for row in keys.result.rows)
    joined = execute_on_source(
        sources,
        "people",
        f"SELECT ?n WHERE {{ VALUES ?key {{ {values} }} ?y <{top.right_property}> ?key ; <{L}name> ?n }}",
    )
    assert whole.result is not None and joined.result is not None
    assert {r["n"].value for r in joined.result.rows} == {r["n"].value for r in whole.result.rows} == {"Alice Adler"}


def test_the_sources_schema_blocks_a_type_inconsistent_query(split: tuple[SourceSet, BridgeFixture]) -> None:
    sources, _fixture = split
    # lab:worksAt is used only by scientists: asking it of a protein is a type conflict.
    outcome = execute_on_source(sources, "whole", f"SELECT ?i WHERE {{ ?p a <{L}Protein> ; <{L}worksAt> ?i }}")
    assert outcome.status == "blocked", outcome.text
    fine = execute_on_source(sources, "whole", f"SELECT ?i WHERE {{ ?p a <{L}Scientist> ; <{L}worksAt> ?i }}")
    assert fine.status == "ok"


def test_two_source_question_end_to_end_through_the_plain_functions(split: tuple[SourceSet, BridgeFixture]) -> None:
    """The A.3 order without a model: catalog, summaries, resolution, bridge, two executions, joined answer."""
    from saga_kgqa.sources.catalog_search import find_sources
    from saga_kgqa.sources.grounding import resolve_entity, source_summary

    sources, _fixture = split
    assert {f.entry.name for f in find_sources(sources, "protein scientist")} >= {"proteins", "people"}
    assert "class" in source_summary(sources, "proteins").text and "class" in source_summary(sources, "people").text
    protein = resolve_entity(sources, "proteins", "Kinase A").candidates[0].iri
    assert protein == L + "p1"
    join = next(c for c in bridge_sources(sources, "proteins", "people").candidates if c.kind == "shared_value")
    keys = execute_on_source(
        sources, "proteins", f"SELECT ?key WHERE {{ <{protein}> <{L}studiedBy> ?x . ?x <{join.left_property}> ?key }}"
    )
    assert keys.result is not None
    values = " ".join(string_literal(row["key"].value) for row in keys.result.rows)
    names = execute_on_source(
        sources,
        "people",
        f"SELECT ?key ?n WHERE {{ VALUES ?key {{ {values} }} ?y <{join.right_property}> ?key ; <{L}name> ?n }}",
    )
    assert names.result is not None
    joined = {
        (k["key"].value, n["n"].value)
        for k in keys.result.rows
        for n in names.result.rows
        if k["key"].value == n["key"].value
    }
    assert joined == {("0000-0001-2345-6789", "Alice Adler")}

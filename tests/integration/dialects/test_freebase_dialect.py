"""The Freebase dialect in lookup: ns: MIDs, names, CVT nodes two hops deep, reverse properties."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.dialects import FREEBASE_DIALECT
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import build_freebase_index
from saga_kgqa.tools.toolbox import ToolView
from tests.support.dialect_data import write_freebase_sources
from tests.support.grounding import tool_view

FIXTURE = Path(__file__).resolve().parents[2] / "data" / "freebase" / "mini_freebase.ttl"


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolView]:
    root = write_freebase_sources(tmp_path_factory.mktemp("freebase"))
    schema = build_freebase_index(root / "grailqa_ontology")
    with KnowledgeGraph(EmbeddedStore.from_files([FIXTURE])) as graph:
        yield tool_view(graph, schema, dialect=FREEBASE_DIALECT)


def test_lookup_names_the_mid_and_expands_the_cvt_node_two_hops(kit: ToolView) -> None:
    result = kit.lookup("ns:m.film1")
    assert result.entity.label == "Inception"
    assert [t.id for t in result.types] == ["ns:film.film"]
    kept = {k.info.property.id: k for k in result.kept}
    assert "ns:type.object.name" not in kept  # a name, not a property
    starring = kept["ns:film.film.starring"].values[0]
    parts = {d.property.id: d.value for d in starring.details}
    assert parts["ns:film.performance.actor"].label == "Leonardo DiCaprio"
    assert parts["ns:film.performance.character"].label == "Dom Cobb"
    assert "ns:film.performance.film" not in parts  # the edge back to the film is left out
    assert "Leonardo DiCaprio" in result.text
    # A named value is not a CVT node: no second hop for the director.
    assert kept["ns:film.film.directed_by"].values[0].details == ()


def test_a_named_node_of_a_mediator_type_is_expanded_as_a_cvt(kit: ToolView) -> None:
    # It has a name, so only its mediator type makes it a CVT node.
    kept = {k.info.property.id: k for k in kit.lookup("ns:m.film1").kept}
    release = kept["ns:film.film.release_date_s"].values[0]
    parts = {d.property.id: d.value for d in release.details}
    assert parts["ns:film.film_regional_release_date.film_release_region"].label == "United Kingdom"
    assert "ns:film.film_regional_release_date.release_date" in parts


def test_lookup_lists_reverse_properties_by_their_inverse(kit: ToolView) -> None:
    result = kit.lookup("ns:m.nolan")
    reverse = {r.property.id: r for r in result.reverse}
    directed = reverse["ns:film.film.directed_by"]
    assert directed.inverse is not None and directed.inverse.id == "ns:film.director.film"
    assert directed.value_count == 1
    assert directed.subjects[0].label == "Inception"
    assert "Reverse properties" in result.text and "ns:film.director.film" in result.text


def test_lookup_hides_a_property_whose_fb_roles_domain_excludes_the_type(kit: ToolView) -> None:
    result = kit.lookup("ns:m.nolan")
    hidden = {h.info.property.id for h in result.hidden}
    assert hidden == {"ns:film.film.runtime"}  # domain film.film; a film.director is not one
    assert "ns:people.person.date_of_birth" in {k.info.property.id for k in result.kept}

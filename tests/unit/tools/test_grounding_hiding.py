"""What lookup may hide: only what the schema confirms (issue 13, point 1).

tests/data/hiding/partial_hierarchy.ttl has CK25's shape (Employee ⊑ Agent recorded, Supplier ⊑ Agent
not); flat_closed.ttl has Spider4SPARQL's (one class per table, no subclass axioms).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import build_schema_index
from saga_kgqa.schema.vocab import RDFS_CLASS
from saga_kgqa.tools.execute.preflight import preflight
from saga_kgqa.tools.results import LookupResult
from saga_kgqa.tools.toolbox import ToolView
from tests.support.grounding import RecordingReader, tool_view

DATA = Path(__file__).parents[2] / "data" / "hiding"
EX = "http://example.org/hide/"
FLAT = "http://example.org/flat/"


def _kit(name: str) -> Iterator[ToolView]:
    with EmbeddedStore.from_files([DATA / name]) as store:
        schema = build_schema_index(store, induce=False)
        yield tool_view(KnowledgeGraph(store), schema)


@pytest.fixture(scope="module")
def partial() -> Iterator[ToolView]:
    yield from _kit("partial_hierarchy.ttl")


@pytest.fixture(scope="module")
def flat() -> Iterator[ToolView]:
    yield from _kit("flat_closed.ttl")


def _kept(result: LookupResult) -> dict[str, str]:
    return {k.info.property.iri: k.basis for k in result.kept}


def _hidden(result: LookupResult) -> dict[str, str]:
    return {h.info.property.iri: h.rule for h in result.hidden}


def test_a_type_without_recorded_superclass_keeps_a_conflicting_domain(partial: ToolView) -> None:
    # Supplier has no superclass in the schema or the graph: it may be an Agent, so address stays,
    # and so does price (Product domain): neither conflict is confirmed.
    result = partial.lookup(f"<{EX}res/sup1>")
    assert _hidden(result) == {}
    assert _kept(result)[EX + "address"] == "unknown_ancestry"
    assert _kept(result)[EX + "price"] == "unknown_ancestry"
    assert "not confirmed" in result.text


def test_a_conflict_through_a_recorded_ancestry_is_hidden_with_its_rule(partial: ToolView) -> None:
    # Employee ⊑ Agent is recorded; no sampled employee but emp1 itself has a price.
    result = partial.lookup(f"<{EX}res/emp1>")
    assert _hidden(result) == {EX + "price": "domain_conflict"}
    hidden = result.hidden[0]
    assert "ancestry is recorded" in hidden.reason
    assert _kept(result)[EX + "address"] == "subclass"


def test_sampled_instances_make_a_type_an_observed_domain_member(partial: ToolView) -> None:
    # Hardware ⊑ Product is recorded, so address (Agent) conflicts; but the other hardware items use it.
    result = partial.lookup(f"<{EX}res/hw1>")
    assert _hidden(result) == {}
    kept = next(k for k in result.kept if k.info.property.iri == EX + "address")
    assert kept.basis == "observed_domain"
    assert "2 of 2 sampled Hardware instances" in kept.reason


def test_a_flat_formal_ontology_is_closed_and_hides_with_that_rule(flat: ToolView) -> None:
    assert flat.context.schema.is_closed()
    result = flat.lookup(f"<{FLAT}s1>")
    assert _hidden(result) == {FLAT + "year": "closed_schema"}


def test_a_schema_with_a_hierarchy_is_not_closed(partial: ToolView) -> None:
    assert not partial.context.schema.is_closed()


def test_exact_mode_stays_the_papers_intersection(tmp_path: Path) -> None:
    with EmbeddedStore.from_files([DATA / "partial_hierarchy.ttl"]) as store:
        schema = build_schema_index(store, induce=False)
        kit = tool_view(KnowledgeGraph(store), schema, mode="exact")
        result = kit.lookup(f"<{EX}res/sup1>")
    assert set(_hidden(result)) == {EX + "address", EX + "price"}


def test_the_ancestor_fetch_is_bounded_and_cached() -> None:
    with EmbeddedStore.from_files([DATA / "partial_hierarchy.ttl"]) as store:
        reader = RecordingReader(store)
        kit = tool_view(reader, build_schema_index(store, induce=False))
        kit.lookup(f"<{EX}res/sup1>")
        fetches = [q.text for q in reader.queries if "subClassOf>)+" in q.text]
        kit.lookup(f"<{EX}res/sup1>")
        again = [q.text for q in reader.queries if "subClassOf>)+" in q.text]
    # Supplier (unplaced) is asked for once; Employee and Hardware are placed by the index and never asked.
    assert len(fetches) == len(again) == 1
    assert "Supplier" in fetches[0] and "Employee" not in fetches[0]
    assert "LIMIT" in fetches[0]


def test_a_class_level_entity_is_typed_as_a_class(partial: ToolView) -> None:
    # E.7: "communist state" has no rdf:type; its subclass edge makes it a class, and Θ says so.
    result = partial.lookup(f"<{EX}CommunistState>")
    assert [t.iri for t in result.types] == [RDFS_CLASS]
    assert result.type_delta.types_of(EX + "CommunistState") == {RDFS_CLASS}
    assert not result.needs_prune_fallback


def test_an_instance_is_not_typed_as_a_class(partial: ToolView) -> None:
    result = partial.lookup(f"<{EX}res/cuba>")
    assert [t.iri for t in result.types] == [EX + "CommunistState"]


def test_a_class_pattern_propagates_the_class_to_the_variable(partial: ToolView) -> None:
    # "Give me all communist countries": ?x a C types ?x with C, so the check works on ?x's properties.
    graph, schema = partial.context.graph, partial.context.schema
    wrong = f"SELECT ?x ?d WHERE {{ ?x a <{EX}CommunistState> . ?x <{EX}birthDate> ?d }}"
    right = f"SELECT ?x ?p WHERE {{ ?x a <{EX}CommunistState> . ?x <{EX}population> ?p }}"
    blocked = preflight(wrong, graph=graph, schema=schema).report.blocked
    assert [b.pattern for b in blocked] and "birthDate" in blocked[0].pattern
    assert not preflight(right, graph=graph, schema=schema).report.blocked

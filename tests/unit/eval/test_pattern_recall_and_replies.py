"""Gold patterns of reference queries (constants, IRI objects, Spider's FILTER literals) and MARS reply parsing."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources

import pytest
from bench.grounding_eval.pattern_recall import RecallTally, gold_patterns

from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.mars.replies import is_correct, read_decision
from saga_kgqa.tools.patterns.model import Pattern
from saga_kgqa.tools.patterns.ranking import DegreeRanking

EX = "http://example.org/space/"
P = f"PREFIX ex: <{EX}>\n"


@pytest.fixture(scope="module")
def graph() -> Iterator[KnowledgeGraph]:
    path = resources.files("saga_kgqa") / "example_graph" / "space_exploration.ttl"
    with KnowledgeGraph(EmbeddedStore.from_files([path])) as kg:  # type: ignore[list-item]
        yield kg


def test_constant_subject_and_iri_object_give_outgoing_and_incoming_patterns(graph: KnowledgeGraph) -> None:
    gold = gold_patterns(
        "q", "?", P + "SELECT ?a WHERE { ex:JimLovell ex:employer ?o . ?a ex:nationality ex:USA }", graph
    )
    assert gold.keys == {(EX + "JimLovell", EX + "employer", "out"), (EX + "USA", EX + "nationality", "in")}


def test_filter_literal_is_resolved_to_the_entities_that_carry_it(graph: KnowledgeGraph) -> None:
    query = P + "SELECT ?d WHERE { ?x ex:name ?n . ?x ex:birthDate ?d . FILTER(?n = 'Jim Lovell') }"
    gold = gold_patterns("q", "?", query, graph)
    assert gold.keys == {(EX + "JimLovell", EX + "name", "out"), (EX + "JimLovell", EX + "birthDate", "out")}
    assert gold_patterns("q", "?", P + "SELECT ?x WHERE { ?x ex:name ?n }", graph).keys == frozenset()


def test_recall_tally_counts_gold_within_each_cutoff(graph: KnowledgeGraph) -> None:
    gold = gold_patterns("q", "?", P + "SELECT ?o WHERE { ex:JimLovell ex:employer ?o }", graph)
    filler = [Pattern(EX + "JimLovell", "", "", f"{EX}p{i}", "", "", "out", 100 - i) for i in range(12)]
    target = Pattern(EX + "JimLovell", "", "", EX + "employer", "", "", "out", 1)
    tally = RecallTally()
    tally.add(gold, [*filler, target], [DegreeRanking()])
    assert (tally.recall("degree", 5), tally.recall("degree", 10), tally.recall("degree", 20)) == (0.0, 0.0, 1.0)
    assert tally.retrievable == tally.gold == 1


def test_reasoner_and_verifier_replies() -> None:
    assert read_decision("Thinking...\nSPARQL:\n```sparql\nSELECT ?x WHERE { ?x ?p ?o }\n```").sparql == (
        "SELECT ?x WHERE { ?x ?p ?o }"
    )
    assert read_decision("I need more. EXPAND: [3, 5, 3]").expand == (3, 5)
    assert read_decision("no idea").problem is not None
    assert is_correct("CORRECT - the result lists the missions")
    assert not is_correct("SPARQL:\n```\nSELECT * WHERE { ?s ?p ?o }\n```")

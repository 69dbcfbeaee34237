"""Which Wikidata gold patterns the offline store can rank fairly: full CoDEx-M neighbourhoods only."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from bench.grounding_eval.pattern_recall import gold_patterns
from bench.grounding_eval.wikidata_patterns import (
    CodexNeighbourhoods,
    direct_property,
    qualifying_patterns,
    select_questions,
)

from saga_kgqa.dialects.wikidata_store import build_wikidata_store
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from tests.support.wikidata_store_data import write_store_sources

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
PREFIXES = (
    f"PREFIX wd: <{WD}> PREFIX wdt: <{WDT}> PREFIX p: <http://www.wikidata.org/prop/> "
    "PREFIX ps: <http://www.wikidata.org/prop/statement/> "
)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[KnowledgeGraph, CodexNeighbourhoods]]:
    root = tmp_path_factory.mktemp("wd-patterns")
    data = write_store_sources(root / "data")
    build_wikidata_store(data, root / "store")
    with KnowledgeGraph(EmbeddedStore(root / "store", profile=get_profile("wikidata"))) as graph:
        yield graph, CodexNeighbourhoods.read(data)


def _kept(store: tuple[KnowledgeGraph, CodexNeighbourhoods], body: str) -> frozenset[tuple[str, str, str]]:
    graph, codex = store
    gold = gold_patterns("q", "?", PREFIXES + body, graph, dict(graph.profile.prefixes))
    return qualifying_patterns(gold, graph, codex).keys


def test_codex_neighbourhoods_are_the_loaded_codex_m_splits(store: tuple[KnowledgeGraph, CodexNeighbourhoods]) -> None:
    codex = store[1]
    assert codex.relations == {WDT + "P27", WDT + "P57"}
    assert {WD + "Q20", WD + "Q1", WD + "Q11"} <= codex.entities
    assert WD + "Q10" in codex.entities
    # CoDEx-S training and SPINACH's recorded entities are not CoDEx-M's.
    assert WD + "Q42053" not in codex.entities


def test_gold_pattern_of_a_codex_entity_and_relation_held_by_the_store_qualifies(
    store: tuple[KnowledgeGraph, CodexNeighbourhoods],
) -> None:
    assert _kept(store, "SELECT ?x WHERE { wd:Q20 wdt:P57 ?x }") == {(WD + "Q20", WDT + "P57", "out")}
    assert _kept(store, "SELECT ?x WHERE { ?x wdt:P27 wd:Q10 }") == {(WD + "Q10", WDT + "P27", "in")}


def test_statement_form_counts_as_its_direct_property(store: tuple[KnowledgeGraph, CodexNeighbourhoods]) -> None:
    kept = _kept(store, "SELECT ?x WHERE { wd:Q20 p:P57 ?s . ?s ps:P57 ?x }")
    assert kept == {(WD + "Q20", WDT + "P57", "out")}
    assert direct_property("http://www.wikidata.org/prop/statement/P57") == WDT + "P57"
    assert direct_property(WDT + "P57") == WDT + "P57"
    assert direct_property("http://www.wikidata.org/prop/qualifier/P580").endswith("qualifier/P580")


def test_held_out_pruned_and_type_patterns_do_not_qualify(store: tuple[KnowledgeGraph, CodexNeighbourhoods]) -> None:
    graph = store[0]
    # Q21 wdt:P57 is a CoDEx-M test triple: the store never loads it.
    assert _kept(store, "SELECT ?x WHERE { wd:Q21 wdt:P57 ?x }") == frozenset()
    # Isfahan's population is in the store (a SPINACH lookup), but its neighbourhood is pruned.
    assert graph.query(f"ASK {{ <{WD}Q42053> <{WDT}P1082> ?v }}").boolean is True
    assert _kept(store, "SELECT ?x WHERE { wd:Q42053 wdt:P1082 ?x }") == frozenset()
    # A type predicate is not a gold pattern, as on the other graphs.
    assert _kept(store, "SELECT ?x WHERE { wd:Q1 wdt:P31 ?x }") == frozenset()
    # Only the qualifying half of a question's patterns is kept.
    assert _kept(store, "SELECT ?x WHERE { wd:Q42053 wdt:P1082 ?x . wd:Q20 wdt:P57 ?y }") == {
        (WD + "Q20", WDT + "P57", "out")
    }


def test_select_questions_skips_repeats_and_unparsable_and_samples_seeded(
    store: tuple[KnowledgeGraph, CodexNeighbourhoods],
) -> None:
    graph, codex = store
    questions = [
        ("a:1", "Who directed it?", PREFIXES + "SELECT ?x WHERE { wd:Q20 wdt:P57 ?x }"),
        ("b:1", "who  directed it?", PREFIXES + "SELECT ?x WHERE { wd:Q22 wdt:P57 ?x }"),  # the same text
        ("a:2", "Citizens of Q10?", PREFIXES + "SELECT ?x WHERE { ?x wdt:P27 wd:Q10 }"),
        ("a:3", "Citizens of Q11?", PREFIXES + "SELECT ?x WHERE { ?x wdt:P27 wd:Q11 }"),
        ("a:4", "Broken", "SELECT WHERE {"),
        ("a:5", "Population?", PREFIXES + "SELECT ?x WHERE { wd:Q42053 wdt:P1082 ?x }"),
    ]
    every = select_questions(questions, graph, codex, size=10, seed=0)
    assert [g.qid for g in every] == ["a:1", "a:2", "a:3"]
    one = select_questions(questions, graph, codex, size=2, seed=7)
    assert len(one) == 2 and {g.qid for g in one} <= {"a:1", "a:2", "a:3"}
    assert [g.qid for g in select_questions(questions, graph, codex, size=2, seed=7)] == [g.qid for g in one]

"""The gold false-block count of the Wikidata/Freebase bench counts every block a user would see (issue 13)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from bench.grounding_eval.wikidata import CHECK_SETTINGS, FREEBASE_CHECK_SETTINGS, measure_gold

from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex, build_schema_index
from saga_kgqa.tools.execute.models import ExecuteSettings

DATA = Path(__file__).parents[2] / "data" / "hiding" / "partial_hierarchy.ttl"
EX = "PREFIX ex: <http://example.org/hide/> "
INVENTED = ("q:1", EX + "SELECT ?x ?p WHERE { ?x ex:prices ?p }")


@pytest.fixture(scope="module")
def graph() -> Iterator[tuple[KnowledgeGraph, SchemaIndex]]:
    with EmbeddedStore.from_files([DATA]) as store:
        yield KnowledgeGraph(store), build_schema_index(store, induce=False)


def test_a_block_for_a_pattern_that_matches_nothing_is_counted(graph: tuple[KnowledgeGraph, SchemaIndex]) -> None:
    tally = measure_gold(graph[0], graph[1], [INVENTED], ExecuteSettings(), run_blocked=False)
    assert len(tally.blocked) == 1
    assert "ex:prices" in tally.blocked[0] and "nearest existing properties are ex:price" in tally.blocked[0]


def test_a_blocked_gold_query_is_false_only_when_the_store_answers_it(
    graph: tuple[KnowledgeGraph, SchemaIndex],
) -> None:
    # Schema-only (no confirming ASK): employees have prices in the data although price's domain is Product.
    schema_only = ExecuteSettings(verify_blocks=False)
    answered = ("q:2", EX + "SELECT ?e ?p WHERE { ?e a ex:Employee ; ex:price ?p }")
    tally = measure_gold(graph[0], graph[1], [answered, INVENTED], schema_only)
    assert [line.split(":")[0] + ":" + line.split(":")[1] for line in tally.blocked] == ["q:2"]
    assert tally.blocked_empty == []  # the vacuous-pattern block needs the confirming ASK: off here
    vacuous_on = measure_gold(graph[0], graph[1], [INVENTED], ExecuteSettings())
    assert vacuous_on.blocked == [] and len(vacuous_on.blocked_empty) == 1


def test_the_partial_and_empty_offline_stores_prove_no_absence(graph: tuple[KnowledgeGraph, SchemaIndex]) -> None:
    # The offline Wikidata store is a sample, and there is no Freebase graph: a pattern they cannot match
    # says nothing about the real graph, so the gold measurement leaves the vacuous-pattern block off.
    for settings in (CHECK_SETTINGS, FREEBASE_CHECK_SETTINGS):
        assert not settings.check_vacuous
        assert measure_gold(graph[0], graph[1], [INVENTED], settings).blocked == []

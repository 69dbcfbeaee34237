"""Pattern reads on the shipped example graph: grouped counts per direction, caps that say what they cut,
verbalisation with ids, enrichment with domain/range (unknown kept and said), and the lexical rankings."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources

import pytest

from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import build_schema_index
from saga_kgqa.tools.context import ToolContext
from saga_kgqa.tools.patterns.enrichment import EnrichSettings, enrich, render_patterns
from saga_kgqa.tools.patterns.model import humanised_name
from saga_kgqa.tools.patterns.ranking import BM25Ranking, DegreeRanking, RandomRanking
from saga_kgqa.tools.patterns.retrieval import RetrievalCaps, retrieve_patterns

EX = "http://example.org/space/"


@pytest.fixture(scope="module")
def context() -> Iterator[ToolContext]:
    path = resources.files("saga_kgqa") / "example_graph" / "space_exploration.ttl"
    store = EmbeddedStore.from_files([path])  # type: ignore[list-item]
    schema = build_schema_index(store, induce=False)
    with KnowledgeGraph(store) as graph:
        yield ToolContext(graph, schema, prefixes={"ex": EX})


def test_outgoing_and_incoming_patterns_with_counts(context: ToolContext) -> None:
    found = retrieve_patterns(context, EX + "USA")
    by_key = {(p.prop.removeprefix(EX), p.direction): p for p in found.patterns}
    assert ("name", "out") in by_key and ("nationality", "in") in by_key
    nationality = by_key[("nationality", "in")]
    assert nationality.count >= 4 and nationality.entity_label == "United States"
    assert nationality.verbalised() == "?subject 'nationality' (ex:nationality) 'United States' (ex:USA)"
    assert nationality.embedding_text() == "?subject 'nationality' 'United States'"
    assert found.notes == []
    # Most frequent first within a direction.
    incoming = [p.count for p in found.patterns if p.direction == "in"]
    assert incoming == sorted(incoming, reverse=True)


def test_caps_bound_a_high_degree_node_and_say_what_they_cut(context: ToolContext) -> None:
    full = retrieve_patterns(context, EX + "NASA")
    capped = retrieve_patterns(context, EX + "NASA", RetrievalCaps(scan=3, max_properties=1))
    assert len([p for p in capped.patterns if p.direction == "in"]) == 1
    assert len(full.patterns) > len(capped.patterns)
    joined = " ".join(capped.notes)
    assert "only the 1 most frequent properties were kept" in joined
    assert "counted over the first 3 triples only" in joined


def test_enrichment_shows_instances_and_domain_range_and_says_unknown(context: ToolContext) -> None:
    found = retrieve_patterns(context, EX + "JimLovell")
    chosen = [p for p in found.patterns if p.prop in (EX + "nationality", "http://www.w3.org/2000/01/rdf-schema#label")]
    lines = {item.pattern.prop: item for item in enrich(context, chosen, EnrichSettings())}
    nationality = lines[EX + "nationality"]
    assert 'e.g. "United States" (ex:USA)' in nationality.text
    assert "domain: ex:Person; range: ex:Country" in nationality.text  # a label equal to the id is not repeated
    assert nationality.instance_iris == (EX + "USA",)
    assert "domain: unknown; range: unknown" in lines["http://www.w3.org/2000/01/rdf-schema#label"].text
    bare = enrich(context, chosen, EnrichSettings(examples=False, typology=False))
    assert all("e.g." not in item.text and "domain" not in item.text for item in bare)
    assert bare[0].instance_iris or bare[1].instance_iris  # expansion still knows the next hop
    assert render_patterns(bare, ["a cap"]).splitlines()[-1] == "note: a cap"


def test_lexical_degree_and_random_rankings(context: ToolContext) -> None:
    found = retrieve_patterns(context, EX + "JimLovell").patterns
    assert BM25Ranking().rank("When was Jim Lovell born? birth date", found)[0].prop == EX + "birthDate"
    degree = DegreeRanking().rank("anything", found)
    assert [p.count for p in degree] == sorted((p.count for p in degree), reverse=True)
    shuffled = RandomRanking(3).rank("q", found)
    assert shuffled == RandomRanking(3).rank("q", found) and sorted(map(str, shuffled)) == sorted(map(str, found))


def test_humanised_names() -> None:
    assert humanised_name("http://ld.company.org/prod-vocab/hasProductManager") == "has product manager"
    assert humanised_name("http://valuenet/ontop/ship#disposition_of_ship") == "disposition of ship"

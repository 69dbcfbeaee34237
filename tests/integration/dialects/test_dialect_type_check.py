"""Type-check settings the dialects need: unplaced Wikidata types and Freebase's plain-string numbers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from bench.grounding_eval.wikidata import standard_filters

from saga_kgqa.dialects.wikidata_store import build_wikidata_store
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import build_dialect_index, build_freebase_index
from saga_kgqa.tools.execute.models import ExecuteSettings
from saga_kgqa.tools.execute.preflight import preflight
from tests.support.dialect_data import write_freebase_sources
from tests.support.wikidata_store_data import write_store_sources

FREEBASE_TTL = Path(__file__).resolve().parents[2] / "data" / "freebase" / "mini_freebase.ttl"
NS = "PREFIX ns: <http://rdf.freebase.com/ns/>\n"


@pytest.fixture(scope="module")
def wikidata(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[KnowledgeGraph, Path]]:
    root = tmp_path_factory.mktemp("wd")
    data = write_store_sources(root / "data")
    build_wikidata_store(data, root / "store")
    with KnowledgeGraph(EmbeddedStore(root / "store", profile=get_profile("wikidata"))) as graph:
        yield graph, data


def blocked(graph: KnowledgeGraph, schema: object, query: str, settings: ExecuteSettings) -> bool:
    return bool(preflight(query, graph=graph, schema=schema, settings=settings).report.blocked)  # type: ignore[arg-type]


def test_an_unplaced_wikidata_type_blocks_only_when_allowed(wikidata: tuple[KnowledgeGraph, Path]) -> None:
    graph, data = wikidata
    schema = build_dialect_index("wikidata", data_dir=data)
    assert schema.properties["http://www.wikidata.org/prop/direct/P27"].domain_source == "induced"
    strict, open_world = ExecuteSettings(), ExecuteSettings(unplaced_types_block=False)
    film = "SELECT ?c WHERE { ?x wdt:P31 wd:Q11424 . ?x wdt:P27 ?c }"  # film: placed by the curated ontology
    unknown = "SELECT ?c WHERE { ?x wdt:P31 wd:Q987654321 . ?x wdt:P27 ?c }"  # a class the index never saw
    assert blocked(graph, schema, film, strict) and blocked(graph, schema, film, open_world)
    assert blocked(graph, schema, unknown, strict)
    assert not blocked(graph, schema, unknown, open_world)


def test_plain_string_numbers_are_untyped_when_the_store_matches_them_loosely(tmp_path: Path) -> None:
    schema = build_freebase_index(write_freebase_sources(tmp_path) / "grailqa_ontology")
    query = NS + 'SELECT ?f WHERE { ?f ns:film.film.runtime "148" }'
    typed = NS + 'SELECT ?f WHERE { ?f ns:film.film.runtime "148"@en }'
    loose = ExecuteSettings(plain_literals_typed=False)
    with KnowledgeGraph(EmbeddedStore.from_files([FREEBASE_TTL])) as graph:
        assert blocked(graph, schema, query, ExecuteSettings())
        assert not blocked(graph, schema, query, loose)
        assert blocked(graph, schema, typed, loose)  # a language-tagged string is still no float


def test_cwq_virtuoso_or_and_become_standard_sparql() -> None:
    text = "SELECT ?x WHERE {\nFILTER (!isLiteral(?x) OR lang(?x) = '' OR langMatches(lang(?x), 'en'))\n?x ?p ?o }"
    assert "!isLiteral(?x) || lang(?x) = '' || langMatches" in standard_filters(text)
    assert standard_filters("SELECT ?x WHERE { ?x ns:a.OR ?o }") == "SELECT ?x WHERE { ?x ns:a.OR ?o }"

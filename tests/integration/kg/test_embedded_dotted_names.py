"""Freebase names with two or more dots reach pyoxigraph in a form it parses (``ns:type.object.name``).

pyoxigraph 0.5.13 rejects a prefixed name whose local part has two unescaped dots; the
SPARQL grammar allows it and every Freebase query uses such names. Before the fix, each
query below failed with "the store rejected the query: ... expected ['0'..='9']".
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.embedded.dotted_names import escape_dotted_local_names
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import build_freebase_index
from saga_kgqa.tools.execute.tool import execute
from tests.support.dialect_data import write_freebase_sources

FIXTURE = Path(__file__).resolve().parents[2] / "data" / "freebase" / "mini_freebase.ttl"
NS = "PREFIX ns: <http://rdf.freebase.com/ns/>\n"
DIRECTOR = NS + "SELECT ?name WHERE { ns:m.film1 ns:film.film.directed_by ?d . ?d ns:type.object.name ?name }"


@pytest.fixture(scope="module")
def store() -> Iterator[EmbeddedStore]:
    with EmbeddedStore.from_files([FIXTURE]) as embedded:
        yield embedded


@pytest.fixture(scope="module")
def graph(store: EmbeddedStore) -> KnowledgeGraph:
    return KnowledgeGraph(store)


def test_a_guard_query_with_dotted_names_runs_in_the_worker(graph: KnowledgeGraph) -> None:
    rows = graph.query(DIRECTOR).rows
    assert [row["name"].value for row in rows] == ["Christopher Nolan"]


def test_a_template_query_with_dotted_names_runs_in_process(store: EmbeddedStore) -> None:
    result = store.execute(from_template(DIRECTOR))
    assert [row["name"].value for row in result.rows] == ["Christopher Nolan"]


def test_the_execute_tool_answers_a_cwq_shaped_query(
    graph: KnowledgeGraph, tmp_path_factory: pytest.TempPathFactory
) -> None:
    schema = build_freebase_index(write_freebase_sources(tmp_path_factory.mktemp("fb")) / "grailqa_ontology")
    outcome = execute(DIRECTOR, graph=graph, schema=schema)
    assert outcome.status == "ok", outcome.text
    assert "Christopher Nolan" in outcome.text
    assert "ns:type.object.name" in outcome.query  # the query is shown as it was written


def test_only_names_the_parser_would_reject_are_rewritten() -> None:
    text = NS + 'SELECT * { ns:m.0abc ns:a.b.c ?o ; ns:x.y ?p . FILTER(?o != "s.t.u") } # c.d.e\n'
    assert escape_dotted_local_names(text) == (
        NS + 'SELECT * { ns:m.0abc ns:a\\.b\\.c ?o ; ns:x.y ?p . FILTER(?o != "s.t.u") } # c.d.e\n'
    )
    assert escape_dotted_local_names("SELECT * { ?s <http://x/a.b.c> 1.5 }") == "SELECT * { ?s <http://x/a.b.c> 1.5 }"
    assert escape_dotted_local_names("SELECT * { ?s ns:a\\.b.c ?o }") == "SELECT * { ?s ns:a\\.b.c ?o }"

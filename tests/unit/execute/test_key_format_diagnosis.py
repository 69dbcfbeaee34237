"""Why a result is empty when only a key's format differs (issue 37, point 6): tests/data/execute/key_formats.ttl."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.tools.execute.tool import ExecuteSettings, execute

DATA = Path(__file__).resolve().parents[2] / "data" / "execute" / "key_formats.ttl"
PREFIX = "PREFIX ex: <http://example.org/k/>\n"


@pytest.fixture(scope="module")
def graph() -> Iterator[KnowledgeGraph]:
    store = EmbeddedStore.from_files([DATA])
    yield KnowledgeGraph(store)
    store.close()


def diagnosis(graph: KnowledgeGraph, body: str) -> str:
    settings = ExecuteSettings(type_check=False, check_vacuous=False, record_types=False)
    outcome = execute(PREFIX + body, graph=graph, settings=settings)
    assert outcome.status == "empty" and outcome.diagnosis is not None, outcome.text
    return outcome.diagnosis.message


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (
            'SELECT ?x WHERE { ?x ex:name "karen brant" }',
            'writes "Karen Brant", differing from "karen brant" only in case',
        ),
        ('SELECT ?x WHERE { ?x ex:name "Karen  Brant " }', "only in whitespace or case"),
        ('SELECT ?x WHERE { ?x ex:city "Berlin" }', '"Berlin"@de (@de)'),
        ('SELECT ?x WHERE { ?x ex:code "17" }', '"EMP-17", which holds "17" with a prefix or suffix'),
        ('SELECT ?x WHERE { ?x ex:dept "sales" }', 'holds the IRI ex:sales there, not the string "sales"'),
        ("SELECT ?n WHERE { <http://example.org/k/user@home> ex:name ?n }", "one character escaped differently"),
        ("SELECT ?x WHERE { ?x ex:name ex:KarenBrant }", 'holds literals there (e.g. "'),
        (
            'SELECT ?x WHERE { ?x ex:dept ?d FILTER(?d = "http://example.org/k/sales") }',
            "an IRI, with a string: they are never equal",
        ),
    ],
)
def test_the_diagnosis_names_the_format_the_graph_uses(graph: KnowledgeGraph, body: str, said: str) -> None:
    assert said in diagnosis(graph, body)


def test_a_key_absent_in_every_format_gets_no_format_note(graph: KnowledgeGraph) -> None:
    message = diagnosis(graph, 'SELECT ?x WHERE { ?x ex:name "Nobody Here" }')
    assert "matches nothing" in message and "Key format" not in message

"""Evidence coverage on gold queries counts every answer row it could not support, and failed queries apart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.eval.qa.evidence_coverage import tally_gold
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.tools.evidence.gather import EvidenceSettings

EX = "http://example.org/c/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeGraph]:
    path = Path(tmp_path_factory.mktemp("coverage")) / "c.ttl"
    path.write_text(f"<{EX}a> <{EX}p> <{EX}b> . <{EX}b> <{EX}p> <{EX}c> . <{EX}a> <{EX}n> 3 .\n")
    with EmbeddedStore.from_files([path]) as store:
        yield KnowledgeGraph(store)


def test_rows_supported_rows_without_patterns_and_failures_are_counted_apart(graph: KnowledgeGraph) -> None:
    queries = [
        ("two-rows", f"SELECT ?x WHERE {{ ?x <{EX}p> ?y }}"),
        # A row built by BIND alone has no triple behind it: checked, and not supported.
        ("bind-only", 'SELECT ?x WHERE { BIND("free" AS ?x) }'),
        ("nothing", f"SELECT ?x WHERE {{ ?x <{EX}q> ?y }}"),
        ("refused", f"DELETE WHERE {{ ?x <{EX}p> ?y }}"),
    ]
    tally = tally_gold(graph, queries, label_predicates=[LABEL], settings=EvidenceSettings(rows=20))
    assert (tally.queries, tally.rows_checked, tally.rows_supported) == (2, 3, 2)
    assert tally.coverage == pytest.approx(2 / 3)
    assert set(tally.short) == {"bind-only"} and tally.without_rows == 1 and set(tally.failed) == {"refused"}

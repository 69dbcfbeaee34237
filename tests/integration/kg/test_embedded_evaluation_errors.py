"""pyoxigraph's evaluation failures reach the model as the query's fault, with what to write instead.

Before: ``xsd:int(?x)`` (CK25's reference queries use it; Virtuoso has it) and CWQ's
``xsd:datetime`` came back as "BackendError ... Not the query's fault, and retrying will
not help: the graph cannot be used now". Also: a literal rdflib cannot convert
(``"2000"^^xsd:dateTime``) printed rdflib's traceback on the terminal while the type
check parsed the query.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.errors import BackendError, QueryEvaluationError
from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.embedded.engine_errors import evaluation_error
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.tools.execute.tool import execute

DATA = Path(__file__).resolve().parents[3] / "src" / "saga_kgqa" / "example_graph" / "space_exploration.ttl"
EX = "PREFIX ex: <http://example.org/space/>\nPREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"


@pytest.fixture(scope="module")
def store() -> Iterator[EmbeddedStore]:
    with EmbeddedStore.from_files([DATA]) as embedded:
        yield embedded


@pytest.mark.parametrize(
    ("call", "advice"),
    [("xsd:datetime(?d)", "write xsd:dateTime"), ("xsd:INT(?d)", "write xsd:int"), ("xsd:nonsense(?d)", "xsd:integer")],
)
def test_an_unsupported_cast_is_the_querys_fault_with_what_to_write(
    store: EmbeddedStore, call: str, advice: str
) -> None:
    sparql = EX + f"SELECT ?m WHERE {{ ?m ex:launchDate ?d BIND({call} AS ?x) }}"
    with pytest.raises(QueryEvaluationError, match=advice):
        KnowledgeGraph(store).query(sparql)  # guard path: the worker
    with pytest.raises(QueryEvaluationError, match=advice):
        store.execute(from_template(sparql))  # template path: in process
    outcome = execute(sparql, graph=KnowledgeGraph(store), schema=SchemaIndex())
    assert outcome.error is not None and outcome.error.query_at_fault
    assert "cannot be used now" not in outcome.text and advice in outcome.text


def test_other_failures_stay_store_failures() -> None:
    error = evaluation_error("RuntimeError: something inside the engine broke")
    assert type(error) is BackendError


def test_an_unconvertible_literal_logs_no_traceback(store: EmbeddedStore, caplog: pytest.LogCaptureFixture) -> None:
    sparql = EX + 'SELECT ?m WHERE { ?m ex:launchDate ?d FILTER(?d > "2000"^^xsd:dateTime) }'
    with caplog.at_level(logging.WARNING):
        outcome = execute(sparql, graph=KnowledgeGraph(store), schema=SchemaIndex())
    assert outcome.status in ("ok", "empty")
    assert [r for r in caplog.records if r.name.startswith("rdflib")] == []


#: XSD's derived integer casts (faults AE2): CK25's reference queries 37 and 42 sum ``xsd:int(?quantity)``.
DERIVED = (
    EX
    + """SELECT ?total ?small ?big ?typed ?none WHERE {
  { SELECT (SUM(xsd:int(?x)) AS ?total) WHERE { VALUES ?x { "2" "3"^^xsd:integer 4.7 "-1.9"^^xsd:double true } } }
  BIND(xsd:byte("127") AS ?small)
  BIND(xsd:byte("128") AS ?big)
  BIND(<http://www.w3.org/2001/XMLSchema#unsignedLong>(" 18446744073709551615 ") AS ?typed)
  BIND(xsd:nonNegativeInteger(-1) AS ?none)
}"""
)


def test_xsd_derived_integer_casts_run_on_both_paths(store: EmbeddedStore) -> None:
    for result in (KnowledgeGraph(store).query(DERIVED), store.execute(from_template(DERIVED))):  # worker, in process
        (row,) = result.rows
        # 2 + 3 + 4 (4.7 truncated) - 1 (-1.9 truncated) + 1 (true)
        assert (row["total"].value, row["total"].datatype) == ("9", "http://www.w3.org/2001/XMLSchema#integer")
        # oxigraph keeps every derived integer as an xsd:integer (stored "127"^^xsd:byte comes back so too)
        assert (row["small"].value, row["small"].datatype) == ("127", "http://www.w3.org/2001/XMLSchema#integer")
        assert row["typed"].value == "18446744073709551615"
        assert "big" not in row and "none" not in row  # out of range: an error, so unbound

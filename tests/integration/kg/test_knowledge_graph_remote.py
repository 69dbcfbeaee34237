"""The guarded facade over the remote backend: rejected queries send nothing (faults.md A3, A6)."""

from __future__ import annotations

import pytest

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.kg.remote.endpoint import RemoteEndpoint
from tests.support.fake_endpoint import FakeEndpoint, select_json, uri_rows
from tests.support.oxigraph_server import OxigraphServer

GENERIC = get_profile("generic")

REJECTED = [
    "INSERT DATA { <http://x/a> <http://x/b> <http://x/c> }",
    "SELECT * WHERE { ?s ?p ?o } ; INSERT DATA { <http://x/a> <http://x/b> <http://x/c> }",
    "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
    "SELECT * WHERE { SERVICE SILENT <http://127.0.0.1:9/> { ?s ?p ?o } }",
    "BASE <http://127.0.0.1:9/> SELECT * WHERE { SERVICE <sparql> { ?s ?p ?o } }",
    "PREFIX e: <http://169.254.169.254/> SELECT * WHERE { SERVICE e:latest { ?s ?p ?o } }",
    "SELECT * WHERE { ?s ?p ?o FILTER EXISTS { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } } }",
    "SELECT * WHERE { { SELECT ?s WHERE { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } } } }",
    "SELECT * WHERE { SERVICE ?endpoint { ?s ?p ?o } }",
    "SELECT * WHERE { ?s ?p ?o ",
]


@pytest.mark.parametrize("text", REJECTED)
def test_rejected_queries_send_no_request_to_a_remote_endpoint(fake_endpoint: FakeEndpoint, text: str) -> None:
    fake_endpoint.script(select_json(["s"], uri_rows(1)))
    graph = KnowledgeGraph(RemoteEndpoint(fake_endpoint.url, profile=GENERIC))
    with pytest.raises(QueryRejected):
        graph.query(text)
    assert fake_endpoint.requests == []
    # Control: the endpoint does answer a query that passes the guard.
    assert len(graph.query("SELECT ?s WHERE { ?s ?p ?o }").rows) == 1
    assert len(fake_endpoint.requests) == 1


def test_open_backend_reaches_a_real_endpoint_with_declared_prefixes(oxigraph: OxigraphServer) -> None:
    """The remote branch of open_backend; xsd: is resolved by the guard and declared in the text sent."""
    text = "SELECT ?s ?age WHERE { ?s ?p ?age FILTER(DATATYPE(?age) = xsd:integer) } ORDER BY ?age"
    with KnowledgeGraph(open_backend(endpoint=oxigraph.url, profile="fuseki")) as graph:
        result = graph.query(text, ExecutionLimits(max_rows=5))
    # oxigraph predeclares no prefixes: this only answers if PREFIX xsd: was sent.
    assert [row["age"].value for row in result.rows] == ["35", "42"]


def test_guard_capped_limit_marks_the_result_truncated(fake_endpoint: FakeEndpoint) -> None:
    graph = KnowledgeGraph(RemoteEndpoint(fake_endpoint.url, profile=GENERIC))
    fake_endpoint.script(select_json(["s"], uri_rows(4)))
    capped = graph.query("SELECT ?s WHERE { ?s ?p ?o }", ExecutionLimits(max_rows=3))
    assert "LIMIT 4" in fake_endpoint.queries[-1]
    assert capped.truncated and len(capped.rows) == 3
    fake_endpoint.script(select_json(["s"], uri_rows(2)))
    written = graph.query("SELECT ?s WHERE { ?s ?p ?o } LIMIT 2", ExecutionLimits(max_rows=3))
    assert not written.truncated and len(written.rows) == 2

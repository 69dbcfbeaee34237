"""What a model (or an MCP client) reads when a tool call fails: pinned per caller, then served by one function."""

from __future__ import annotations

import pytest

from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.errors import (
    ConfigurationError,
    EndpointUnavailable,
    QueryTimeout,
    SagaError,
    SourceMisbehaved,
    ToolInputError,
)
from saga_kgqa.graph import source_tools, tool_nodes
from saga_kgqa.serve.mcp.models import ToolOutput
from saga_kgqa.serve.mcp.tooling import ToolHost
from saga_kgqa.serve.named_sources import NamedSources
from saga_kgqa.state import Action

SECRET_URL = "https://user:hunter2@kg.example/sparql"


def _observation(delta: dict[str, object]) -> str:
    history = delta["history"]
    assert isinstance(history, list)
    return str(history[0].observation)


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (ToolInputError("no entity named 'x'"), "Invalid argument for lookup: no entity named 'x'"),
        (
            QueryTimeout("took too long"),
            "The graph failed (QueryTimeout: took too long); the query must change; "
            "retrying the same call will not help.",
        ),
        (
            EndpointUnavailable("503 from the server"),
            "The graph failed (EndpointUnavailable: 503 from the server); not a problem with your request; "
            "retrying later may help.",
        ),
    ],
)
def test_a_graph_tool_node_names_the_fault_and_the_retry(exc: SagaError, expected: str) -> None:
    action = Action(tool="lookup", argument="x", call_id="c1")
    assert _observation(tool_nodes._failed(action, 2, exc)) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (ConfigurationError("no source named 'nope'"), "Invalid argument for resolve: no source named 'nope'"),
        (
            EndpointUnavailable(f"{SECRET_URL} answered 503"),
            "The source failed (EndpointUnavailable: https://***@kg.example/sparql answered 503); "
            "retrying later may help.",
        ),
        (
            SourceMisbehaved("not JSON"),
            "The source failed (SourceMisbehaved: not JSON); retrying the same call will not help.",
        ),
    ],
)
def test_a_source_tool_node_hides_credentials_and_says_whether_to_retry(exc: SagaError, expected: str) -> None:
    action = Action(tool="resolve", argument="x", call_id="c1")
    assert _observation(source_tools._failed(action, 3, exc)) == expected  # type: ignore[arg-type]


def test_the_mcp_server_names_the_source_instead_of_its_endpoint() -> None:
    catalog = Catalog(sources={"lab": SourceRecord(name="lab", endpoint=SECRET_URL)}, default_source="lab")
    host = ToolHost(NamedSources(catalog))
    result = host.failure(QueryTimeout(f"{SECRET_URL} took too long"), ToolOutput(source="lab"))
    assert result.is_error
    assert result.content[0].text == (  # type: ignore[union-attr]
        "The call failed (QueryTimeout: source 'lab' took too long); the query must change; "
        "retrying the same call will not help."
    )


def test_a_graph_tool_node_hides_credentials_too() -> None:
    # The graph tools showed an endpoint's message as it came; the source tools and the MCP server
    # redacted it. A URL with user information reaches no model from any of them now.
    action = Action(tool="search", argument="x", call_id="c1")
    text = _observation(tool_nodes._failed(action, 1, EndpointUnavailable(f"{SECRET_URL} answered 503")))
    assert "hunter2" not in text
    assert text.startswith("The graph failed (EndpointUnavailable: https://***@kg.example/sparql answered 503);")

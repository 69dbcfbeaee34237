"""Typed errors on the remaining paths (issue 26, faults L15-L19)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from mcp import Client
from starlette.testclient import TestClient

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.runs.batch import read_run
from saga_kgqa.runs.predictions import PredictionRecord, PredictionStatus
from saga_kgqa.serve.mcp.server import build_server
from saga_kgqa.serve.mcp.tooling import ToolHost
from saga_kgqa.serve.named_sources import NamedSources
from saga_kgqa.serve.text2sparql.app import Text2SparqlService, build_app
from saga_kgqa.serve.web.app import build_app as build_web_app


class ModelDownOnce:
    """An answerer whose model is unreachable on the first call, then answers."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, question: BenchmarkQuestion, /) -> PredictionRecord:
        self.calls += 1
        if self.calls == 1:
            raise ConnectionError("Connection error: http://model.example/v1?key=SECRETKEY refused")
        return PredictionRecord(
            question_id=question.id, predicted_sparql="ASK { ?s ?p ?o }", status=PredictionStatus.ANSWERED
        )


def test_text2sparql_with_the_model_down_answers_a_json_error_records_it_and_retries(tmp_path: Path) -> None:
    answerer = ModelDownOnce()
    predictions = tmp_path / "t2s.jsonl"
    service = Text2SparqlService(
        datasets={"urn:ds": "src"}, answerer_for=lambda _s, _t: answerer, predictions=predictions, config={}
    )
    with TestClient(build_app(service), raise_server_exceptions=False) as client:
        down = client.get("/", params={"dataset": "urn:ds", "question": "Who?"})
        assert down.status_code == 503, down.text
        body = down.json()
        assert "ConnectionError" in body["error"] and "SECRETKEY" not in down.text
        (recorded,) = read_run(predictions).values()
        assert recorded.status is PredictionStatus.FAILED and recorded.error is not None
        again = client.get("/", params={"dataset": "urn:ds", "question": "Who?"})
    assert again.status_code == 200 and again.json()["query"] == "ASK { ?s ?p ?o }"
    assert answerer.calls == 2
    assert next(iter(read_run(predictions).values())).status is PredictionStatus.ANSWERED


def test_a_deeply_nested_catalog_is_a_configuration_error(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="nested too deeply"):
        Catalog.load(catalog)


class StubRuns:
    """The part of :class:`~saga_kgqa.serve.web.runs.WebRuns` the start route uses, over a real catalog."""

    def __init__(self, tmp_path: Path) -> None:
        graph = tmp_path / "g.ttl"
        graph.write_text('<http://example.org/a> <http://example.org/name> "a" .\n', encoding="utf-8")
        self.catalog = Catalog(sources={"g": SourceRecord(name="g", data=(graph,))}, default_source="g")
        self.started: list[tuple[str, str | None, str | None]] = []

    def start(self, question: str, source: str | None, model: str | None, client: str = "local") -> str:
        if not question.strip():
            raise ConfigurationError("ask a question")
        self.catalog.source(source)
        self.started.append((question, source, model))
        return "t1"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ([1, 2], "JSON object"),
        ("text", "JSON object"),
        ({"question": "Who?", "source": 5}, "'source'"),
        ({"question": "Who?", "source": {"a": 1}}, "'source'"),
        ({"question": "Who?", "model": ["m"]}, "'model'"),
        ({"question": 7}, "'question'"),
        ({"question": "Who?\ud800"}, "'question'"),
    ],
)
def test_the_web_api_answers_400_naming_the_field(tmp_path: Path, body: object, field: str) -> None:
    runs = StubRuns(tmp_path)
    app = build_web_app(runs)  # type: ignore[arg-type]
    with TestClient(app, raise_server_exceptions=False) as client:
        payload = json.dumps(body, ensure_ascii=True)  # a lone surrogate travels as \ud800, as JSON allows
        reply = client.post("/api/runs", content=payload, headers={"content-type": "application/json"})
    assert reply.status_code == 400, reply.text
    assert field in reply.json()["error"]
    assert runs.started == []


def test_the_web_api_still_starts_a_valid_run(tmp_path: Path) -> None:
    runs = StubRuns(tmp_path)
    with TestClient(build_web_app(runs), raise_server_exceptions=False) as client:  # type: ignore[arg-type]
        reply = client.post("/api/runs", json={"question": "Who?", "source": "g"})
    assert reply.status_code == 200 and runs.started == [("Who?", "g", None)]


def test_a_lone_surrogate_in_an_mcp_argument_is_a_typed_refusal(tmp_path: Path) -> None:
    runs = StubRuns(tmp_path)
    server = build_server(ToolHost(NamedSources(runs.catalog)))

    async def main() -> list[str]:
        async with Client(server) as session:
            texts = []
            for name, arguments in [("search", {"text": "a\ud800b"}), ("lookup", {"entity": "ex:\ud800"})]:
                result = await session.call_tool(name, arguments)
                assert result.is_error
                texts.append(" ".join(block.text for block in result.content if block.type == "text"))
            return texts

    for text in asyncio.run(main()):
        assert "lone surrogate" in text and "validation error" not in text and "codec" not in text

"""The TEXT2SPARQL server detects the language and sends the scored query shape; the answerer uses the language."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import anyio

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.config.context import SagaContext
from saga_kgqa.graph.builder import SagaGraph
from saga_kgqa.runs.agent_answerer import AgentAnswerer
from saga_kgqa.runs.batch import read_run
from saga_kgqa.runs.gold_runner import GoldRunner
from saga_kgqa.runs.predictions import PredictionRecord
from saga_kgqa.serve.text2sparql.app import Text2SparqlService


def _service(tmp_path: Path) -> Text2SparqlService:
    def answerer_for(_source: str, _seconds: float) -> Any:
        return lambda question: PredictionRecord(question_id=question.id)

    return Text2SparqlService(
        datasets={"https://text2sparql.aksw.org/2026/corporate/": "ck25"},
        answerer_for=answerer_for,
        predictions=tmp_path / "predictions.jsonl",
        config={},
    )


def test_the_text2sparql_server_detects_the_question_language(tmp_path: Path) -> None:
    service = _service(tmp_path)
    german = service.question("ck25", "Welche Produkte liefert der Lieferant Müller GmbH?")
    spanish = service.question("ck25", "¿Qué productos suministra el proveedor?")
    english = service.question("ck25", "Which products does the supplier deliver?")
    assert (german.language, spanish.language, english.language) == ("de", "es", "en")
    # the id does not depend on the language (a restarted server finds its records)
    assert german.id == service.question("ck25", "Welche Produkte liefert der Lieferant Müller GmbH?").id


class _RecordingGraph:
    def __init__(self) -> None:
        self.contexts: list[SagaContext] = []

    def stream(self, _payload: Any, _config: Any, *, context: SagaContext, stream_mode: str) -> Iterator[Any]:
        assert stream_mode == "updates"
        self.contexts.append(context)
        return iter([{"finalize": {"final_sparql": None, "status": "failed"}}])


def test_the_answerer_runs_each_question_in_its_language() -> None:
    graph = _RecordingGraph()
    answerer = AgentAnswerer(cast(SagaGraph, graph), SagaContext(), cast(GoldRunner, object()))
    answerer(BenchmarkQuestion(id="ck26:1-de", benchmark="ck26", question="Wer leitet Vertrieb?", language="de"))
    answerer(BenchmarkQuestion(id="ck26:1-en", benchmark="ck26", question="Who leads sales?"))
    answerer(BenchmarkQuestion(id="x:1", benchmark="x", question="?", language="not a tag!"))
    assert [c.language for c in graph.contexts] == ["de", "en", "en"]


def test_the_text2sparql_server_sends_the_scored_shape_of_the_query(tmp_path: Path) -> None:
    labelled = (
        "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\nPREFIX pv: <http://ld.company.org/prod-vocab/>\n"
        "SELECT ?d ?dLabel WHERE { ?e pv:memberOf ?d . OPTIONAL { ?d rdfs:label ?dLabel } }"
    )

    def answerer_for(_source: str, _seconds: float) -> Any:
        return lambda question: PredictionRecord(question_id=question.id, predicted_sparql=labelled)

    dataset = "https://text2sparql.aksw.org/2026/corporate/"
    service = Text2SparqlService(
        datasets={dataset: "ck25"}, answerer_for=answerer_for, predictions=tmp_path / "p.jsonl", config={}
    )
    status, body = anyio.run(service.answer, dataset, "In which department is Ms. Brant?")
    assert status == 200 and "?dLabel" not in body["query"].split("WHERE")[0] and "?d " in body["query"]
    # a question that asks for names keeps the label column; the record keeps the agent's query either way
    _status, named = anyio.run(service.answer, dataset, "What are the names of the departments?")
    assert "?dLabel" in named["query"].split("WHERE")[0]
    assert all(r.predicted_sparql == labelled for r in read_run(tmp_path / "p.jsonl").values())

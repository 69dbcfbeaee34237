"""The question's language reaches the run: the TEXT2SPARQL server detects it, the answerer applies it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

from saga_kgqa.context import SagaContext
from saga_kgqa.eval.qa.agent_answerer import AgentAnswerer
from saga_kgqa.eval.qa.gold import GoldRunner
from saga_kgqa.eval.qa.predictions import PredictionRecord
from saga_kgqa.eval.qa.questions import BenchmarkQuestion
from saga_kgqa.graph.builder import SagaGraph
from saga_kgqa.serve.text2sparql import Text2SparqlService


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

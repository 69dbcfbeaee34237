"""The TEXT2SPARQL service: the time budget, the protocol's errors, and records as ``saga eval run`` writes them."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
from starlette.testclient import TestClient

from saga_kgqa.eval.qa.predictions import PredictionRecord, PredictionStatus
from saga_kgqa.eval.qa.questions import BenchmarkQuestion
from saga_kgqa.eval.qa.runner import read_run
from saga_kgqa.serve.text2sparql import Text2SparqlService, build_app

QUERY = "SELECT ?x WHERE { ?x ?p ?o } LIMIT 1"


def service(tmp_path: Path, delay_s: float = 0.0, seconds: float = 5.0) -> Text2SparqlService:
    calls: list[str] = []

    def answerer_for(source: str, budget: float) -> object:
        def answer(question: BenchmarkQuestion) -> PredictionRecord:
            calls.append(question.question)
            time.sleep(delay_s)
            return PredictionRecord(question_id=question.id, predicted_sparql=QUERY)

        return answer

    return Text2SparqlService(
        datasets={"https://example.org/ds/": "example"},
        answerer_for=answerer_for,  # type: ignore[arg-type]
        predictions=tmp_path / "run.jsonl",
        config={"face": "text2sparql"},
        seconds=seconds,
        grace_s=0.1,
    )


def test_a_question_past_its_budget_is_recorded_as_a_timeout(tmp_path: Path) -> None:
    slow = service(tmp_path, delay_s=1.5, seconds=0.2)
    status, body = anyio.run(slow.answer, "https://example.org/ds/", "Which?")
    assert status == 200 and body["query"] == ""
    (record,) = read_run(tmp_path / "run.jsonl").values()
    assert record.status is PredictionStatus.TIMEOUT and "0.3 s" in (record.error or "")


def test_protocol_errors_and_answers(tmp_path: Path) -> None:
    client = TestClient(build_app(service(tmp_path)))
    ok = client.get("/", params={"dataset": "https://example.org/ds/", "question": "Which?"})
    assert ok.json() == {"dataset": "https://example.org/ds/", "question": "Which?", "query": QUERY}
    assert client.get("/", params={"dataset": "https://example.org/other/", "question": "Which?"}).status_code == 404
    assert client.get("/", params={"question": "Which?"}).status_code == 400
    assert client.get("/", params={"dataset": "https://example.org/ds/", "question": "x" * 3000}).status_code == 400
    assert (tmp_path / "run.jsonl.config.json").exists()  # the run's configuration, as saga eval run saves it

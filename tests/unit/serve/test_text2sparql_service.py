"""The TEXT2SPARQL service: the time budget, the protocol's errors, and records as ``saga eval run`` writes them."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import anyio
import pytest
from starlette.testclient import TestClient

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.runs.batch import read_run
from saga_kgqa.runs.predictions import PredictionRecord, PredictionStatus
from saga_kgqa.serve.text2sparql.app import BestQueries, Text2SparqlService, build_app
from saga_kgqa.state import QueryAttempt

QUERY = "SELECT ?x WHERE { ?x ?p ?o } LIMIT 1"
EMPTY = "SELECT ?x WHERE { ?x <http://example.org/none> ?o }"


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
    assert record.status is PredictionStatus.TIMEOUT and "0.2 s" in (record.error or "")


EMPTY_AFTER = "SELECT ?x WHERE { ?x <http://example.org/none> ?o }"


def watching_service(
    tmp_path: Path, behaviour: str, seconds: float = 0.6, last: QueryAttempt | None = None
) -> Text2SparqlService:
    """An answerer that runs two queries (one empty, one answering) and maybe ``last``, then hangs or fails."""
    best = BestQueries()

    def answerer_for(source: str, budget: float) -> object:
        def answer(question: BenchmarkQuestion) -> PredictionRecord:
            best.watch(question.id, QueryAttempt(step=1, sparql=EMPTY, status="empty"))
            best.watch(question.id, QueryAttempt(step=2, sparql=QUERY, status="ok", row_count=1))
            if last is not None:
                best.watch(question.id, last)
            if behaviour == "fail":
                raise RuntimeError("the model endpoint closed the connection")
            time.sleep(3.0)
            return PredictionRecord(question_id=question.id, predicted_sparql="SELECT ?late WHERE {}")

        return answer

    return Text2SparqlService(
        datasets={"https://example.org/ds/": "example"},
        answerer_for=answerer_for,  # type: ignore[arg-type]
        predictions=tmp_path / "run.jsonl",
        config={"face": "text2sparql"},
        seconds=seconds,
        grace_s=0.1,
        best=best,
    )


def test_a_run_cut_off_at_the_deadline_answers_its_best_query_so_far_in_time(tmp_path: Path) -> None:
    started = time.perf_counter()
    status, body = anyio.run(watching_service(tmp_path, "hang").answer, "https://example.org/ds/", "Which?")
    assert time.perf_counter() - started < 1.5  # the deadline is 0.6 s; the run would take 3 s
    # The last query executed, its exploratory LIMIT removed (as the agent's finalize step would).
    assert status == 200 and body["query"] == "SELECT ?x WHERE { ?x ?p ?o }"
    (record,) = read_run(tmp_path / "run.jsonl").values()
    assert record.status is PredictionStatus.TIMEOUT and record.predicted_sparql == body["query"]
    assert record.outcome == "timed_out"


def test_a_cut_off_run_never_answers_an_earlier_query_than_its_last(tmp_path: Path) -> None:
    # Issue 37: rows, then an empty query: the empty one is the run's query, the earlier rows are not the answer.
    later_empty = QueryAttempt(step=3, sparql=EMPTY_AFTER, status="empty")
    client = TestClient(build_app(watching_service(tmp_path / "a", "hang", last=later_empty)))
    reply = client.get("/", params={"dataset": "https://example.org/ds/", "question": "Which?"})
    assert reply.json()["query"] == EMPTY_AFTER and reply.headers["saga-outcome"] == "timed_out"
    # A last query the guard refused was never sent: there is no query to answer with, not the earlier one.
    refused = QueryAttempt(step=3, sparql="SELECT nonsense", status="rejected")
    client = TestClient(build_app(watching_service(tmp_path / "b", "hang", last=refused)))
    reply = client.get("/", params={"dataset": "https://example.org/ds/", "question": "Other?"})
    assert reply.json()["query"] == "" and reply.headers["saga-outcome"] == "timed_out"


def test_a_failed_run_still_answers_json_with_its_best_query(tmp_path: Path) -> None:
    client = TestClient(build_app(watching_service(tmp_path, "fail")))
    reply = client.get("/", params={"dataset": "https://example.org/ds/", "question": "Which?"})
    assert reply.status_code == 200 and reply.headers["content-type"] == "application/json"
    assert reply.json()["query"] == "SELECT ?x WHERE { ?x ?p ?o }"
    (record,) = read_run(tmp_path / "run.jsonl").values()
    assert record.status is PredictionStatus.FAILED and "closed the connection" in (record.error or "")


def test_each_request_logs_one_line_without_the_question_text(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    client = TestClient(build_app(service(tmp_path)))
    with caplog.at_level(logging.INFO, logger="saga_kgqa.serve.text2sparql.app"):
        client.get("/", params={"dataset": "https://example.org/ds/", "question": "Which secret?"})
        client.get("/", params={"dataset": "https://example.org/other/", "question": "Which?"})
    lines = [r.getMessage() for r in caplog.records if r.name == "saga_kgqa.serve.text2sparql.app"]
    assert len(lines) == 2
    assert "status=200" in lines[0] and "outcome=answered" in lines[0] and "question_id=text2sparql:" in lines[0]
    assert "status=404" in lines[1] and "error=dataset" in lines[1]
    assert not any("secret" in line for line in lines)


def test_protocol_errors_and_answers(tmp_path: Path) -> None:
    client = TestClient(build_app(service(tmp_path)))
    ok = client.get("/", params={"dataset": "https://example.org/ds/", "question": "Which?"})
    assert ok.json() == {"dataset": "https://example.org/ds/", "question": "Which?", "query": QUERY}
    assert client.get("/", params={"dataset": "https://example.org/other/", "question": "Which?"}).status_code == 404
    assert client.get("/", params={"question": "Which?"}).status_code == 400
    assert client.get("/", params={"dataset": "https://example.org/ds/", "question": "x" * 3000}).status_code == 400
    assert (tmp_path / "run.jsonl.config.json").exists()  # the run's configuration, as saga eval run saves it


def test_the_served_query_drops_a_column_named_by_the_sources_own_label_property(tmp_path: Path) -> None:
    # A private graph names things with ex:displayName: the common label properties do not know it,
    # the source's vocabulary does, and the challenge scores every value of every column.
    labelled = (
        "PREFIX ex: <http://example.org/> "
        "SELECT ?dept ?name WHERE { ex:ann ex:memberOf ?dept . ?dept ex:displayName ?name }"
    )

    def served(names: tuple[str, ...]) -> str:
        def answer(question: BenchmarkQuestion) -> PredictionRecord:
            return PredictionRecord(question_id=question.id, predicted_sparql=labelled)

        app = build_app(
            Text2SparqlService(
                datasets={"https://example.org/ds/": "example"},
                answerer_for=lambda _source, _budget: answer,
                predictions=tmp_path / f"run{len(names)}.jsonl",
                config={"face": "text2sparql"},
                label_properties={"example": names},
            )
        )
        body = TestClient(app).get("/", params={"dataset": "https://example.org/ds/", "question": "Where is Ann?"})
        return str(body.json()["query"])

    assert "?name" in served(()).split("WHERE")[0]
    assert "?name" not in served(("http://example.org/displayName",)).split("WHERE")[0]


def test_each_source_names_its_label_properties_from_the_catalog_without_opening_it(tmp_path: Path) -> None:
    from saga_kgqa.config.catalog import Catalog
    from saga_kgqa.serve.text2sparql.main import label_properties

    catalog = Catalog.from_mapping(
        {
            "sources": {
                "films": {"endpoint": "http://127.0.0.1:9/sparql", "dialect": "freebase"},
                "lab": {"data": ["absent.ttl"]},  # never opened: the file need not exist
            }
        },
        base=tmp_path,
    )
    names = label_properties(catalog, ["films", "lab"])
    assert "http://rdf.freebase.com/ns/type.object.name" in names["films"]
    assert "http://www.w3.org/2000/01/rdf-schema#label" in names["lab"]
    assert "http://rdf.freebase.com/ns/type.object.name" not in names["lab"]

"""``saga serve text2sparql``: the TEXT2SPARQL challenge API over named sources.

``GET /?dataset=IRI&question=TEXT`` answers ``{"dataset", "question", "query"}`` (the
challenge's protocol). Each dataset IRI maps to a source of the operator's catalog; each
question is answered within a time budget (the 2026 challenge allowed 3 minutes): the
answer is always JSON, before the deadline, carrying the best query found so far when time
runs out or the run fails (:class:`BestQueries` sees each query the agent runs). Each
request logs one line (dataset, question id, status, seconds; never the question text). It is
recorded in a predictions file exactly as ``saga eval run`` records a run, so ``saga eval
score`` scores a campaign afterwards. A question met before (the same id in the file) is
answered from its record, as a resumed ``saga eval run`` would skip it.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from saga_kgqa.answer_shape import shape_query
from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.graph.finalize import choose_final_query, without_exploratory_limit
from saga_kgqa.language import detect_language
from saga_kgqa.redaction import redact_text
from saga_kgqa.runs.batch import Answerer, read_run, run_benchmark
from saga_kgqa.runs.predictions import PredictionRecord, PredictionStatus, TraceCounters, record_outcome
from saga_kgqa.serve.perimeter import Perimeter
from saga_kgqa.state import QueryAttempt
from saga_kgqa.state.outcome import RunStatus
from saga_kgqa.text_safety import graph_text

#: The TEXT2SPARQL'26 budget per question.
DEFAULT_SECONDS = 180.0
#: Seconds before the deadline at which the agent is told to stop (it stops between steps), so its own
#: final choice usually arrives in time; at the deadline the best query seen so far is answered.
_GRACE_S = 10.0
MAX_QUESTION_CHARS = 2000
#: How a record of a run that crashed (not one that found no answer) begins its error.
RUN_ERROR = "the run failed: "
#: Queries remembered per question in flight (the newest), for the best-so-far answer.
_KEPT_ATTEMPTS = 64

LOG = logging.getLogger("saga_kgqa.serve.text2sparql.app")
#: The response header carrying the run's outcome (answered, empty, partial, failed, timed_out, refused, ...).
OUTCOME_HEADER = "Saga-Outcome"


@dataclass
class BestQueries:
    """The queries each question in flight has run so far (thread-safe): the answer when time runs out."""

    _seen: dict[str, list[QueryAttempt]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def watch(self, question_id: str, attempt: QueryAttempt) -> None:
        """Note one query a run executed."""
        with self._lock:
            kept = self._seen.setdefault(question_id, [])
            kept.append(attempt)
            del kept[:-_KEPT_ATTEMPTS]

    def best(self, question_id: str) -> str | None:
        """The query the agent's finalize step would choose from what ran so far: the last one executed.

        ``None`` when nothing ran, or when the last query was refused (never sent): an earlier query
        with rows is not the answer (issue 37).
        """
        with self._lock:
            chosen = choose_final_query(list(self._seen.get(question_id, [])))
        if chosen is None or chosen.status in ("rejected", "blocked"):
            return None
        return without_exploratory_limit(chosen.sparql)

    def forget(self, question_id: str) -> None:
        """Drop a question once answered."""
        with self._lock:
            self._seen.pop(question_id, None)


@dataclass
class Text2SparqlService:
    """Answers and records TEXT2SPARQL questions.

    Attributes:
        datasets: Dataset IRI (as the challenge sends it) -> source name.
        answerer_for: Builds the answerer of a source (once per source).
        predictions: The predictions file every answer is appended to.
        config: The run configuration saved beside it (must match on restart).
        known: Benchmark questions by their text: their ids (and gold, for the replay answerer).
        seconds: Deadline per question: the HTTP answer comes by then.
        shape_answers: Send the scored query (display-only label columns dropped,
            :func:`saga_kgqa.answer_shape.shape_query`); the record keeps the agent's own query.
        label_properties: Source name -> its vocabulary's label and description predicates, display
            columns for the shape rule beside the common ones (Freebase's ``type.object.name``).
        grace_s: Seconds before the deadline at which the answerer is asked to stop.
        best: The queries runs have executed so far (the answerer reports to it).
    """

    datasets: Mapping[str, str]
    answerer_for: Callable[[str, float], Answerer]
    predictions: Path
    config: dict[str, Any]
    known: Mapping[str, BenchmarkQuestion] = field(default_factory=dict)
    seconds: float = DEFAULT_SECONDS
    grace_s: float = _GRACE_S
    shape_answers: bool = True
    label_properties: Mapping[str, Sequence[str]] = field(default_factory=dict)
    best: BestQueries = field(default_factory=BestQueries)
    _answerers: dict[str, Answerer] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def question(self, source: str, text: str) -> BenchmarkQuestion:
        """The benchmark question with this text on this source, else a new one with a stable id."""
        found = self.known.get(text.strip())
        if found is not None:
            return found
        digest = hashlib.sha256(f"{source}\n{text.strip()}".encode()).hexdigest()[:16]
        # The challenge sends no language: detect it, so names are searched in it (2026: en, de, es).
        return BenchmarkQuestion(
            id=f"text2sparql:{digest}",
            benchmark="text2sparql",
            question=text.strip(),
            language=detect_language(text),
        )

    @property
    def budget(self) -> float:
        """Seconds the answerer itself is given (the deadline less the grace, at least half the deadline)."""
        return max(self.seconds - self.grace_s, self.seconds / 2)

    def recorded(self, question_id: str) -> PredictionRecord | None:
        """The record of a question answered before, if any."""
        with self._lock:
            return read_run(self.predictions).get(question_id)

    def answerer(self, source: str) -> Answerer:
        """The answerer of a source (built on first use)."""
        with self._lock:
            found = self._answerers.get(source)
            if found is None:
                found = self.answerer_for(source, self.budget)
                self._answerers[source] = found
            return found

    def record(self, question: BenchmarkQuestion, record: PredictionRecord) -> None:
        """Append one record the way ``saga eval run`` does (one line, flushed; the config checked)."""
        with self._lock:
            # retry_failed: a crashed run's record is replaced by the retry's.
            run_benchmark([question], lambda _q: record, self.predictions, config=self.config, retry_failed=True)

    async def answer(self, dataset: str, text: str) -> tuple[int, dict[str, Any]]:
        """The HTTP status and body for one request (and its one log line)."""
        status, body, _outcome = await self.reply(dataset, text)
        return status, body

    async def reply(self, dataset: str, text: str) -> tuple[int, dict[str, Any], str | None]:
        """The HTTP status, the body and the run's outcome (``None`` for a refused request), logged in one line."""
        started = time.perf_counter()
        status, body, note, outcome = await self._answer(dataset, text)
        LOG.info(
            "text2sparql status=%d %s query_chars=%d seconds=%.2f",
            status,
            note,
            len(str(body.get("query") or "")),
            time.perf_counter() - started,
        )
        return status, body, outcome

    async def _answer(self, dataset: str, text: str) -> tuple[int, dict[str, Any], str, str | None]:
        if not dataset or not text.strip():
            return 400, {"error": "give both 'dataset' and 'question' query parameters"}, "error=missing", None
        if len(text) > MAX_QUESTION_CHARS:
            return (
                400,
                {"error": f"the question is longer than {MAX_QUESTION_CHARS} characters"},
                "error=long",
                None,
            )
        source = self.datasets.get(dataset)
        if source is None:
            known = ", ".join(sorted(self.datasets))
            return 404, {"error": f"unknown dataset {dataset!r}; known datasets: {known}"}, "error=dataset", None
        question = self.question(source, text)
        record = await anyio.to_thread.run_sync(self.recorded, question.id)
        note = "replayed"
        if record is None or _run_error(record):  # a run that crashed (model down) is tried again
            record = await self._run(source, question)
            await anyio.to_thread.run_sync(self.record, question, record)
            note = record.status.value
        outcome = record_outcome(record)
        note = f"source={source} question_id={question.id} status={note} outcome={outcome}"
        if _run_error(record) and not record.predicted_sparql:  # crashed before running any query
            return 503, {"dataset": dataset, "question": text, "query": "", "error": record.error}, note, outcome
        query = record.predicted_sparql or ""
        if self.shape_answers and query:
            # The challenge scores every value of every column: labels beside their entities only cost precision.
            query = shape_query(query, text, label_properties=self.label_properties.get(source, ())).scored
        return 200, {"dataset": dataset, "question": text, "query": query}, note, outcome

    async def _run(self, source: str, question: BenchmarkQuestion) -> PredictionRecord:
        started = time.perf_counter()
        status, error = PredictionStatus.TIMEOUT, f"no answer within {self.seconds:.1f} s"
        outcome: RunStatus = "timed_out"
        try:
            # The agent checks its budget between steps; this bound covers a step that hangs.
            with anyio.move_on_after(self.seconds):
                answerer = await anyio.to_thread.run_sync(self.answerer, source)
                found = await anyio.to_thread.run_sync(answerer, question, abandon_on_cancel=True)
                if found.predicted_sparql or found.status is PredictionStatus.ANSWERED:
                    return found
                status, error = found.status, found.error or "the run chose no query"
                outcome = found.outcome or "failed"
        except Exception as exc:  # a model or library failure still answers the protocol, with what ran so far
            reason = graph_text(redact_text(f"{type(exc).__name__}: {exc}"), 300)
            status, error, outcome = PredictionStatus.FAILED, f"{RUN_ERROR}{reason}", "failed"
        finally:
            best = self.best.best(question.id)
            self.best.forget(question.id)
        return PredictionRecord(
            question_id=question.id,
            predicted_sparql=best,
            status=status,
            outcome=outcome,
            error=error,
            trace=TraceCounters(latency_s=time.perf_counter() - started),
        )


def _run_error(record: PredictionRecord) -> bool:
    return record.status is PredictionStatus.FAILED and (record.error or "").startswith(RUN_ERROR)


def build_app(service: Text2SparqlService) -> Starlette:
    """The ASGI app: ``GET /`` (the challenge's endpoint) and ``POST /`` (the same as JSON).

    Serve it behind :func:`perimeter_for`.
    """

    async def endpoint(request: Request) -> JSONResponse:
        status, body, outcome = await service.reply(
            request.query_params.get("dataset", ""), request.query_params.get("question", "")
        )
        # The challenge's reply has no field for it: the run's outcome rides in a header (docs/outcomes.md).
        headers = {OUTCOME_HEADER: outcome} if outcome else None
        return JSONResponse(body, status_code=status, headers=headers)

    async def posted(request: Request) -> JSONResponse:
        # The same question as a JSON body: a request a page cannot send cross-site without a CORS preflight.
        if request.headers.get("content-type", "").split(";", 1)[0].strip().lower() != "application/json":
            return JSONResponse({"error": "send the question as JSON (application/json)"}, status_code=415)
        try:
            body = await request.json()
        except ValueError:
            body = None
        fields = [body.get(k) for k in ("dataset", "question")] if isinstance(body, dict) else [None, None]
        if not all(isinstance(value, str) for value in fields):
            return JSONResponse({"error": "send a JSON object {dataset, question} of two strings"}, status_code=400)
        status, answer, outcome = await service.reply(str(fields[0]), str(fields[1]))
        return JSONResponse(answer, status_code=status, headers={OUTCOME_HEADER: outcome} if outcome else None)

    return Starlette(routes=[Route("/", endpoint, methods=["GET"]), Route("/", posted, methods=["POST"])])


def parse_datasets(pairs: Sequence[str], sources: Sequence[str]) -> dict[str, str]:
    """``IRI=SOURCE`` pairs as a mapping (each source's own name when none are given).

    Raises:
        ConfigurationError: A pair is malformed or names an unknown source.
    """
    if not pairs:
        return {name: name for name in sources}
    mapping: dict[str, str] = {}
    for pair in pairs:
        iri, sep, source = pair.rpartition("=")
        if not sep or not iri or not source:
            raise ConfigurationError(f"--dataset takes IRI=SOURCE, got {pair!r}")
        if source not in sources:
            raise ConfigurationError(f"--dataset {pair!r}: unknown source {source!r}; known: {', '.join(sources)}")
        mapping[iri] = source
    return mapping


def perimeter_for(bind: str) -> Perimeter:
    """The face's perimeter: each ``GET /`` or ``POST /`` is one run, capped per face and per client.

    The face has no page (no token cookie), and a run starts only on a request a web page cannot
    forge (:attr:`Perimeter.client_runs`): the official client's plain ``GET`` passes, an ``<img>`` does not.
    """
    return Perimeter.for_bind(
        bind, is_run=lambda method, path: method in ("GET", "POST") and path == "/", page=False, client_runs=True
    )

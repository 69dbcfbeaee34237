"""The body of ``saga serve text2sparql``: answerers over the catalog's sources, then the HTTP server."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from enum import StrEnum
from pathlib import Path

from saga_kgqa.app.served import ServedAgent
from saga_kgqa.app.sources import toolbox_for_source
from saga_kgqa.benchmarks.loaders import load_benchmark
from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.config.catalog import Catalog
from saga_kgqa.config.context import SagaContext
from saga_kgqa.config.settings import data_dir as shared_data_dir
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.runs.agent_answerer import AgentAnswerer
from saga_kgqa.runs.batch import Answerer, GoldReplayAnswerer
from saga_kgqa.serve.http_face import serve_face
from saga_kgqa.serve.text2sparql.app import (
    LOG,
    BestQueries,
    Text2SparqlService,
    build_app,
    parse_datasets,
    perimeter_for,
)


class AnswererKind(StrEnum):
    """Who answers: the SAGA agent, or the scripted gold-replay baseline (needs --benchmark)."""

    AGENT = "agent"
    GOLD_REPLAY = "gold-replay"


def answerer_factory(
    catalog: Catalog, kind: AnswererKind, model: str | None, best: BestQueries | None = None
) -> Callable[[str, float], Answerer]:
    """Builds the answerer of a source name under a time budget (reporting each query it runs to ``best``)."""
    agent: ServedAgent | None = None
    if kind is AnswererKind.AGENT:
        catalog.model(model)  # an unknown model name fails now, not per question
        # One dataset per benchmark question: the agent answers over that source alone (no source tools).
        agent = ServedAgent(catalog, sources="none")

    def build(source: str, seconds: float) -> Answerer:
        toolbox = toolbox_for_source(catalog.source(source))
        if agent is None:
            return GoldReplayAnswerer(toolbox.graph)
        context = SagaContext(source=source, model=model or "")
        watch = None if best is None else best.watch
        return AgentAnswerer(agent.graph, context, toolbox.graph, max_seconds=seconds, watch=watch)

    return build


def label_properties(catalog: Catalog, sources: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each source's label and description predicates, as its tools name things (its dialect's, else RDFS).

    Read from the catalog alone, so a record replayed before the source is opened is shaped alike.
    """
    from saga_kgqa.app.dialects import schema_vocabulary, tool_dialect
    from saga_kgqa.schema.vocab import SchemaVocabulary

    vocabularies = {source: schema_vocabulary(tool_dialect(catalog.source(source).dialect)) for source in sources}
    return {source: (found or SchemaVocabulary()).display_predicates() for source, found in vocabularies.items()}


def known_questions(benchmark: str | None, data_dir: Path | None) -> dict[str, BenchmarkQuestion]:
    """A benchmark's questions by their text (their ids in the records; their gold for the replay answerer)."""
    if benchmark is None:
        return {}
    loaded = load_benchmark(benchmark, shared_data_dir(data_dir), language="en")
    return {q.question.strip(): q for q in loaded.questions}


def run_text2sparql(
    *,
    out: Path,
    datasets: list[str],
    answerer: AnswererKind,
    model: str | None,
    benchmark: str | None,
    data_dir: Path | None,
    seconds: float,
    bind: str,
    port: int,
) -> None:
    """Serve until stopped.

    Raises:
        ConfigurationError: Bad options, an unusable catalog or benchmark.
    """
    if answerer is AnswererKind.GOLD_REPLAY and benchmark is None:
        raise ConfigurationError("--answerer gold-replay needs --benchmark (the gold queries it replays)")
    perimeter = perimeter_for(bind)  # a non-loopback bind without a token fails before anything loads
    catalog = Catalog.from_env()
    mapping = parse_datasets(datasets, sorted(catalog.sources))
    best = BestQueries()
    service = Text2SparqlService(
        datasets=mapping,
        answerer_for=answerer_factory(catalog, answerer, model, best),
        predictions=out,
        config={
            "face": "text2sparql",
            "datasets": mapping,
            "answerer": answerer.value,
            "model": model,
            "benchmark": benchmark,
            "seconds": seconds,
        },
        known=known_questions(benchmark, data_dir),
        seconds=seconds,
        label_properties=label_properties(catalog, mapping.values()),
        best=best,
    )
    _log_requests()
    serve_face(build_app(service), perimeter, bind, port)


def _log_requests() -> None:
    """One line per request on stderr (uvicorn's own access log stays off)."""
    if not LOG.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        LOG.addHandler(handler)
    LOG.setLevel(logging.INFO)
    LOG.propagate = False

"""Examples from confirmed runs (issue 25, 1c): answered runs only, guarded, run on the graph, never a benchmark's."""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from saga_kgqa.benchmarks.loaders import load_benchmark
from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.cli import app
from saga_kgqa.config.context import SagaContext
from saga_kgqa.config.settings import example_graph_path
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.examples.confirmed import FinishedRun, confirm_run, read_run
from saga_kgqa.examples.leakage import ExampleLeakage, LeakageGuard
from saga_kgqa.examples.model import read_examples
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.runs.trajectory import TrajectoryWriter

QUESTION = "Who flew on Apollo 11?"
CREW = "PREFIX ex: <http://example.org/space/>\nSELECT ?a WHERE { ex:Apollo11 ex:crewMember ?a }"
NO_GUARD = LeakageGuard([])


@pytest.fixture(scope="module")
def space() -> Iterator[KnowledgeGraph]:
    graph = KnowledgeGraph(EmbeddedStore.from_files([example_graph_path()]))
    yield graph
    graph.close()


def _trace(path: Path, *, question: str = QUESTION, status: str = "answered", sparql: str | None = CREW) -> Path:
    """A trajectory as `saga ask --trace` writes it (start with the context, end with status and query)."""
    with TrajectoryWriter(path) as writer:
        writer.start(question=question, thread_id="t-1", context=vars(SagaContext(language="en")))
        writer.update("controller", {"steps": 1})
        writer.end(status=status, final_sparql=sparql)
    return path


def _run(**fields: str) -> FinishedRun:
    values = {"question": QUESTION, "sparql": CREW, "status": "answered", "language": "en", "origin": "test"}
    return FinishedRun(**(values | fields))


def test_a_run_is_read_from_a_trace_or_from_ask_json(tmp_path: Path) -> None:
    from_trace = read_run(_trace(tmp_path / "run.trace.jsonl"))
    assert (from_trace.question, from_trace.sparql, from_trace.status) == (QUESTION, CREW, "answered")
    assert from_trace.language == "en" and "thread t-1" in from_trace.origin
    doc = tmp_path / "run.json"
    doc.write_text(json.dumps({"thread_id": "t-2", "question": QUESTION, "status": "gave_up", "final_sparql": None}))
    from_json = read_run(doc)
    assert from_json.status == "gave_up" and from_json.sparql == ""
    junk = tmp_path / "junk.txt"
    junk.write_text("not a run\n")
    with pytest.raises(ConfigurationError, match="not a JSON line"):
        read_run(junk)


def test_a_confirmed_answered_run_is_appended_with_its_count_and_date(space: KnowledgeGraph, tmp_path: Path) -> None:
    out = tmp_path / "space.examples.jsonl"
    kept = confirm_run(_run(), space, NO_GUARD, out)
    assert kept.result_count == 3 and kept.source == "runs"
    assert kept.checked_on == datetime.datetime.now(datetime.UTC).date().isoformat()
    assert read_examples(out) == [kept]
    with pytest.raises(ConfigurationError, match="already has this example"):
        confirm_run(_run(question="Which astronauts were on Apollo 11?"), space, NO_GUARD, out)
    assert len(read_examples(out)) == 1


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"status": "budget_exhausted"}, "only runs that ended 'answered'"),
        ({"sparql": "DELETE WHERE { ?s ?p ?o }"}, "rejected by the guard"),
        ({"sparql": "PREFIX ex: <http://example.org/space/>\nSELECT ?a WHERE { ex:Apollo11 ex:nope ?a }"}, "no row"),
    ],
)
def test_runs_that_are_not_good_examples_are_refused(
    space: KnowledgeGraph, tmp_path: Path, fields: dict[str, str], message: str
) -> None:
    out = tmp_path / "space.examples.jsonl"
    with pytest.raises(ConfigurationError, match=message):
        confirm_run(_run(**fields), space, NO_GUARD, out)
    assert not out.exists()


def test_a_benchmark_question_is_refused_even_reworded_when_its_query_is_the_gold(
    space: KnowledgeGraph, tmp_path: Path
) -> None:
    gold = BenchmarkQuestion(id="b:7", benchmark="b", question="Name the Apollo 11 crew.", gold_sparql=CREW)
    guard = LeakageGuard([gold])
    with pytest.raises(ExampleLeakage, match="benchmark question b:7"):
        confirm_run(_run(), space, guard, tmp_path / "out.jsonl")
    with pytest.raises(ExampleLeakage, match="its question is benchmark question b:7"):
        confirm_run(_run(question="name the  Apollo 11 crew"), space, guard, tmp_path / "out.jsonl")


@pytest.mark.shared_data
def test_cli_refuses_a_ck25_question_and_appends_a_fair_run(data_dir: Path, tmp_path: Path) -> None:
    graph = str(data_dir / "text2sparql_ck25" / "prod-inst.ttl")
    out = tmp_path / "ck25.examples.jsonl"
    ck25 = load_benchmark("ck25", data_dir).questions[0]
    leaked = _trace(tmp_path / "leaked.jsonl", question=ck25.question, sparql=ck25.gold_sparql)
    base = ["index", "example-confirm", "--out", str(out), "--data", graph, "--data-dir", str(data_dir)]
    refused = CliRunner().invoke(app, [*base[:2], str(leaked), *base[2:], "--benchmark", "ck25"])
    assert refused.exit_code != 0 and f"benchmark question {ck25.id}" in refused.output
    assert not out.exists()
    fair_query = (
        "PREFIX pv: <http://ld.company.org/prod-vocab/>\nSELECT ?e WHERE { ?e pv:memberOf "
        "<http://ld.company.org/prod-instances/dept-73191> }"
    )
    fair = _trace(tmp_path / "fair.jsonl", question="Which employees work in department 73191?", sparql=fair_query)
    appended = CliRunner().invoke(app, [*base[:2], str(fair), *base[2:], "--benchmark", "ck25"])
    assert appended.exit_code == 0, appended.output
    report = json.loads(appended.output)
    assert report["screened_against"] == ["ck25"] and report["appended"]["result_count"] > 0
    assert [e.sparql for e in read_examples(out)] == [fair_query]

"""Gold store policy: shipped, computed, unavailable, empty, drift; persistence and drift report."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from saga_kgqa.benchmarks.questions import BenchmarkQuestion, values_document
from saga_kgqa.errors import ConfigurationError, QueryTimeout
from saga_kgqa.eval.qa.gold import GoldStatus, GoldStore, build_gold_store, drift_report
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.result import QueryResult, Term

STAMP = datetime(2026, 1, 2, tzinfo=UTC)
VALUE_A = QueryResult.from_sparql_json(values_document([Term("literal", "http://a")]))


class ScriptedGraph:
    """Answers each query text from a table; a missing text times out (the only double here)."""

    endpoint_id = "scripted:test"

    def __init__(self, answers: dict[str, QueryResult]) -> None:
        self.answers = answers
        self.calls: list[str] = []

    def query(self, text: str | bytes, limits: ExecutionLimits | None = None) -> QueryResult:
        text = text.decode() if isinstance(text, bytes) else text
        self.calls.append(text)
        if text not in self.answers:
            raise QueryTimeout("the gold query ran past its deadline")
        return self.answers[text]


def rows(*values: str) -> QueryResult:
    return QueryResult(form="SELECT", variables=["x"], rows=[{"x": Term("uri", v)} for v in values])


def question(
    qid: str, sparql: str | None, answers: QueryResult | None = None, values: bool = False
) -> BenchmarkQuestion:
    return BenchmarkQuestion(
        id=qid,
        benchmark="t",
        question="q?",
        gold_sparql=sparql,
        gold_answers=None if answers is None else answers.to_sparql_json(),
        answers_are_values=values,
    )


def test_each_status_and_where_the_gold_came_from() -> None:
    graph = ScriptedGraph({"Q2": rows("http://a"), "Q4": rows(), "Q5": rows("http://a", "http://b")})
    store = build_gold_store(
        [
            question("shipped", "Q1", rows("http://s")),
            question("computed", "Q2"),
            question("fails", "Q3"),
            question("empty", "Q4"),
            question(
                "values-drift", "Q5", QueryResult.from_sparql_json(values_document([Term("literal", "http://a")])), True
            ),
            question("no-sparql", None),
        ],
        graph,
        clock=lambda: STAMP,
    )
    status = {record.question_id: record.status for record in store}
    assert status == {
        "shipped": GoldStatus.OK,
        "computed": GoldStatus.OK,
        "fails": GoldStatus.UNAVAILABLE,
        "empty": GoldStatus.EMPTY,
        "values-drift": GoldStatus.DRIFT,
        "no-sparql": GoldStatus.UNAVAILABLE,
    }
    assert "Q1" not in graph.calls  # shipped gold is frozen, not recomputed
    computed = store.get("computed")
    assert computed is not None and computed.source == "computed"
    assert (computed.endpoint_id, computed.computed_at) == ("scripted:test", STAMP)
    failed = store.get("fails")
    assert failed is not None and "QueryTimeout" in (failed.error or "") and not failed.usable
    with pytest.raises(ConfigurationError, match="gold_unavailable"):
        failed.result()
    drift = store.get("values-drift")
    assert drift is not None and "1 extra" in (drift.note or "")


def test_truncated_gold_is_unavailable_not_partial() -> None:
    cut = rows("http://a")
    cut.truncated = True
    store = build_gold_store([question("cut", "Q")], ScriptedGraph({"Q": cut}))
    record = store.get("cut")
    assert record is not None and record.status is GoldStatus.UNAVAILABLE


def test_store_round_trips_and_refuses_other_files(tmp_path: Path) -> None:
    store = build_gold_store([question("a", "Q", rows("http://a")), question("b", "Z")], ScriptedGraph({}))
    path = tmp_path / "gold" / "store.jsonl"
    store.save(path)
    again = GoldStore.load(path)
    assert [r.model_dump() for r in again] == [r.model_dump() for r in store]
    path.write_text('{"question": "not a record"}\n', encoding="utf-8")
    with pytest.raises(ConfigurationError, match="not a gold record"):
        GoldStore.load(path)
    with pytest.raises(ConfigurationError, match="cannot read"):
        GoldStore.load(tmp_path / "missing.jsonl")


def test_drift_report_compares_frozen_gold_with_a_fresh_run() -> None:
    decimal = "http://www.w3.org/2001/XMLSchema#decimal"
    integer = "http://www.w3.org/2001/XMLSchema#integer"
    frozen_number = QueryResult(form="SELECT", variables=["n"], rows=[{"n": Term("literal", "+100", decimal)}])
    questions = [
        question("same", "S", rows("http://a")),
        question("changed", "C", rows("http://a", "http://b")),
        question("gone", "G", rows("http://a")),
        question("respelled", "N", frozen_number),
    ]
    store = build_gold_store(questions)
    fresh = ScriptedGraph(
        {
            "S": rows("http://a"),
            "C": rows("http://a", "http://c", "http://d"),
            "N": QueryResult(form="SELECT", variables=["n"], rows=[{"n": Term("literal", "100", integer)}]),
        }
    )
    report = drift_report(store, questions, fresh, clock=lambda: STAMP)
    assert report.counts() == {"changed": 1, "fresh_failed": 1, "same": 2}
    assert report.changed() == ["changed"]
    changed = next(e for e in report.entries if e.question_id == "changed")
    assert (changed.missing, changed.extra) == (1, 2)
    assert report.run_at == STAMP and report.endpoint_id == "scripted:test"


def test_drift_report_sees_growth_and_shrinkage_alone() -> None:
    # Wikidata's usual drift is growth: new answers appear while every frozen one stays.
    questions = [
        question("grown", "G", rows("http://a")),
        question("shrunk", "S", rows("http://a", "http://b")),
        question("ask-flipped", "A", QueryResult(form="ASK", boolean=False)),
    ]
    store = build_gold_store(questions)
    fresh = ScriptedGraph(
        {"G": rows("http://a", "http://new"), "S": rows("http://a"), "A": QueryResult(form="ASK", boolean=True)}
    )
    report = drift_report(store, questions, fresh, clock=lambda: STAMP)
    entries = {entry.question_id: entry for entry in report.entries}
    assert (entries["grown"].outcome, entries["grown"].missing, entries["grown"].extra) == ("changed", 0, 1)
    assert (entries["shrunk"].outcome, entries["shrunk"].missing, entries["shrunk"].extra) == ("changed", 1, 0)
    assert entries["ask-flipped"].outcome == "changed"
    assert report.changed() == ["grown", "shrunk", "ask-flipped"]

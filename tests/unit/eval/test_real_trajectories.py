"""The real-trajectory measurement: SPINACH's recorded queries read back, and the shared tally of the check."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bench.grounding_eval.spinach_trajectories import recorded_outcome, spinach_queries
from bench.grounding_eval.trajectories import TrajectoryQuery, measure_trajectories

from saga_kgqa.dialects.spinach_trace import TRACE_FILE
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex, build_schema_index
from saga_kgqa.tools.execute.models import ExecuteSettings

COMPANY_TTL = Path(__file__).resolve().parents[2] / "data" / "execute" / "company.ttl"
PREFIX = "PREFIX ex: <http://example.org/company/>\n"
CONFLICT = PREFIX + "SELECT ?m WHERE { ex:laptop ex:hasManager ?m }"


def _execution(sparql: str, observation: str | None) -> dict[str, Any]:
    return {"thought": "", "action_name": "execute_sparql", "action_argument": sparql, "observation": observation}


def _write_traces(data_dir: Path, traces: list[Any]) -> None:
    path = data_dir / TRACE_FILE
    path.parent.mkdir(parents=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        json.dump(traces, handle)


def test_spinach_queries_read_every_execution_with_its_recorded_outcome(tmp_path: Path) -> None:
    rows = "SELECT ?p WHERE { wd:Q761383 wdt:P138 ?p }"
    empty = "SELECT ?f WHERE { ?f wdt:P39 wd:Q212908 }"
    ask = "ASK { wd:Q2926117 wdt:P19 ?b }"
    broken = "SELECT ?s WHERE { ?s wdt:P39 ?x } UNION { ?s wdt:P40 ?y }"
    unbound = "SELECT ?a WHERE { wd:Q63246568 wdt:P161 ?c }"
    timed_out = "SELECT ?s WHERE { ?s wdt:P1346 wd:Q128109 }"
    dropped = "SELECT ?n WHERE { wd:Q42053 wdt:P1082 ?n }"
    first = {
        "question": "After whom is the Riemannian geometry named?",
        "generated_sparqls": [
            {"sparql": rows, "execution_status": "ok", "execution_result": [{"p": {"type": "uri", "value": "x"}}]},
            {"sparql": empty, "execution_status": "ok", "execution_result": []},
            {"sparql": ask, "execution_status": "ok", "execution_result": False},
            {"sparql": broken, "execution_status": "syntax_error", "execution_result": []},
            {"sparql": unbound, "execution_status": "ok", "execution_result": [{}, {}]},
            {"sparql": dropped, "execution_status": "ok", "execution_result": [{"n": {"value": "1961260"}}]},
        ],
        "actions": [
            {"action_name": "search_wikidata", "action_argument": "Riemannian geometry", "observation": "x (Q1): y"},
            _execution(rows, "p\nQ42299"),
            _execution(empty, "Query returned empty result."),
            _execution(ask, "False"),
            _execution(broken, "java.util.concurrent.ExecutionException: MalformedQueryException"),
            _execution(unbound, "Empty DataFrame\nColumns: []\nIndex: [0, 1]"),
            _execution(dropped, None),
            {"action_name": "stop", "action_argument": "", "observation": None},
        ],
    }
    # No generated_sparqls record: the observation alone decides, and a missing one says nothing.
    second = {
        "question": "q2",
        "actions": [
            _execution(timed_out, None),
            _execution("   ", "Query returned empty result."),
            _execution(empty, "Query returned empty result."),
            _execution(rows, "Empty DataFrame\nColumns: []\nIndex: []"),
        ],
    }
    _write_traces(tmp_path, [first, "not a trace", second])
    found = [(q.qid, q.sparql, q.recorded) for q in spinach_queries(tmp_path)]
    assert found == [
        ("qald10:1:1", rows, "ok"),
        ("qald10:1:2", empty, "empty"),
        ("qald10:1:3", ask, "ask_false"),
        ("qald10:1:4", broken, "error"),
        ("qald10:1:5", unbound, "ok"),
        ("qald10:1:6", dropped, "ok"),
        ("qald10:2:1", timed_out, "unknown"),
        ("qald10:2:2", empty, "empty"),
        ("qald10:2:3", rows, "empty"),
    ]


@pytest.mark.parametrize(
    ("observation", "expected"),
    [("True", "ok"), ("", "empty"), ("Error: timeout", "error"), ("n\n5", "ok"), (7, "unknown")],
)
def test_observations_alone(observation: object, expected: str) -> None:
    assert recorded_outcome(None, observation) == expected


def test_a_missing_or_malformed_trace_file_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="not found"):
        list(spinach_queries(tmp_path))
    _write_traces(tmp_path, {"not": "a list"})
    with pytest.raises(ConfigurationError, match="not a list"):
        list(spinach_queries(tmp_path))


@pytest.fixture(scope="module")
def store() -> Iterator[EmbeddedStore]:
    with EmbeddedStore.from_files([COMPANY_TTL]) as opened:
        yield opened


@pytest.fixture(scope="module")
def graph(store: EmbeddedStore) -> KnowledgeGraph:
    return KnowledgeGraph(store)


@pytest.fixture(scope="module")
def schema(store: EmbeddedStore) -> SchemaIndex:
    return build_schema_index(store)


def test_blocks_are_judged_by_the_recorded_outcome_or_a_run_here(graph: KnowledgeGraph, schema: SchemaIndex) -> None:
    queries = [
        TrajectoryQuery("blocked-empty", CONFLICT, "empty"),
        TrajectoryQuery("blocked-but-rows", CONFLICT, "ok"),
        TrajectoryQuery("blocked-unknown", CONFLICT, "unknown"),
        TrajectoryQuery("blocked-run-here", CONFLICT),
        TrajectoryQuery("missed", PREFIX + "SELECT ?n WHERE { ex:alice ex:name ?n }", "empty"),
        TrajectoryQuery("ok-run-here", PREFIX + "SELECT ?n WHERE { ex:alice ex:name ?n }"),
        TrajectoryQuery("ask-false-run-here", PREFIX + 'ASK { ex:alice ex:name "Zed" }'),
        TrajectoryQuery("rejected", "SELEC nonsense", "empty"),
    ]
    tally = measure_trajectories(graph, schema, queries, ExecuteSettings(diagnose_empty=False))
    assert tally.queries == 8 and tally.checkable == 7
    assert tally.by_status == {"blocked": 4, "empty": 1, "ok": 1, "ask_false": 1, "rejected": 1}
    assert tally.blocked_empty == 2 and tally.blocked_unconfirmed == 1
    assert [line.split(":")[0] for line in tally.false_blocks] == ["blocked-but-rows"]
    assert [line.split(":")[0] for line in tally.missed_empty] == ["missed", "ask-false-run-here"]
    assert tally.returned_nothing == 4 and tally.empty_blocked_share == 0.5
    assert all("ex:hasManager expects a subject of type ex:Employee" in text for text in tally.block_texts)
    assert tally.type_checked >= 4 and tally.type_checked_empty >= 2

"""The record/replay cache: replay never calls the live backend, and keys ignore only layout."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from saga_kgqa.errors import (
    BackendError,
    BadResponse,
    CacheCorrupted,
    CacheMiss,
    ConfigurationError,
    EndpointThrottled,
    EndpointUnavailable,
    QueryEvaluationError,
    QuerySyntaxError,
    QueryTimeout,
    QueryTooHeavy,
)
from saga_kgqa.kg.cache.replay_cache import CACHE_FORMAT, CacheMode, RecordReplayBackend
from saga_kgqa.kg.core.backend import ExecutionLimits, KGBackend
from saga_kgqa.kg.core.profiles import EndpointProfile, get_profile
from saga_kgqa.kg.core.query import CheckedQuery, from_template
from saga_kgqa.kg.core.result import QueryResult, Term
from saga_kgqa.kg.embedded.store import EmbeddedStore

EX = "http://example.org/"
GRAPH = f"""@prefix ex: <{EX}> .
ex:ada ex:name "Ada"@en , "Ada Lovelace" ; ex:born "1815-12-10"^^<http://www.w3.org/2001/XMLSchema#date> ;
    ex:knows ex:charles , [ ex:name "anonymous" ] .
ex:charles ex:name "Charles"@en .
"""
RUN: list[tuple[CheckedQuery, ExecutionLimits]] = [
    (from_template(f"SELECT ?p ?o WHERE {{ <{EX}ada> ?p ?o }} ORDER BY ?p ?o"), ExecutionLimits()),
    (from_template(f"SELECT ?o WHERE {{ <{EX}ada> ?p ?o }}", limit=None), ExecutionLimits(max_rows=2)),
    (from_template(f"ASK {{ <{EX}ada> <{EX}knows> <{EX}charles> }}", "ASK"), ExecutionLimits()),
    (from_template(f"CONSTRUCT {{ ?s <{EX}label> ?n }} WHERE {{ ?s <{EX}name> ?n }}", "CONSTRUCT"), ExecutionLimits()),
]


def guard_query(text: str) -> CheckedQuery:
    return CheckedQuery(text=text, form="SELECT", origin="guard", source_text=text)


Behaviour = Callable[[CheckedQuery, ExecutionLimits], QueryResult]


class CountingBackend:
    """A scripted backend that counts its calls; every call runs ``behaviour``."""

    def __init__(self, behaviour: Behaviour, endpoint_id: str = "fake:kg") -> None:
        self.behaviour = behaviour
        self.calls = 0
        self._endpoint_id = endpoint_id

    @property
    def endpoint_id(self) -> str:
        return self._endpoint_id

    @property
    def profile(self) -> EndpointProfile:
        return get_profile("generic")

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        self.calls += 1
        return self.behaviour(query, limits or ExecutionLimits())

    def close(self) -> None:
        pass


def never_called(query: CheckedQuery, limits: ExecutionLimits) -> QueryResult:
    raise AssertionError(f"the live backend was called during replay: {query.text}")


def answer_with_row(value: str) -> Behaviour:
    def behaviour(query: CheckedQuery, limits: ExecutionLimits) -> QueryResult:
        return QueryResult(form="SELECT", variables=["x"], rows=[{"x": Term("literal", value)}], elapsed_s=0.01)

    return behaviour


def failing_with(error: BackendError) -> Behaviour:
    def behaviour(query: CheckedQuery, limits: ExecutionLimits) -> QueryResult:
        raise error

    return behaviour


def cache_files(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.rglob("*.json")) if cache_dir.exists() else []


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EmbeddedStore]:
    path = tmp_path / "graph.ttl"
    path.write_text(GRAPH, encoding="utf-8")
    with EmbeddedStore.from_files([path]) as opened:
        yield opened


def test_backend_satisfies_the_protocol(tmp_path: Path) -> None:
    wrapped = RecordReplayBackend(CountingBackend(never_called), cache_dir=tmp_path, mode=CacheMode.REPLAY)
    assert isinstance(wrapped, KGBackend)
    assert wrapped.endpoint_id == "fake:kg"


def test_replay_reproduces_a_recorded_run_without_any_live_call(store: EmbeddedStore, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    recorder = RecordReplayBackend(store, cache_dir=cache_dir, mode=CacheMode.RECORD)
    recorded = [recorder.execute(query, limits) for query, limits in RUN]
    assert recorded[1].truncated is True
    assert len(cache_files(cache_dir)) == len(RUN)

    # The autouse no_egress guard is in force as well: no socket could leave the machine.
    with pytest.raises(AssertionError, match="non-loopback"):
        socket.create_connection(("192.0.2.1", 80), timeout=0.1)
    offline = CountingBackend(never_called, endpoint_id=store.endpoint_id)
    replayer = RecordReplayBackend(offline, cache_dir=cache_dir, mode=CacheMode.REPLAY)
    replayed = [replayer.execute(query, limits) for query, limits in RUN]

    assert offline.calls == 0
    assert [r.to_dict() for r in replayed] == [r.to_dict() for r in recorded]
    assert replayed[0].rows == recorded[0].rows  # Term objects too: lang tags, datatypes, blank nodes
    assert replayed[2].boolean is True
    assert replayed[3].variables == ["subject", "predicate", "object"]


@pytest.mark.parametrize(
    "error",
    [
        QuerySyntaxError("the store rejected the query: error at 1:9", server_text="error at 1:9: expected"),
        QueryTimeout("the query ran past its 2 s deadline and was stopped"),
        QueryEvaluationError("the endpoint failed evaluating the query", server_text="Virtuoso 22012 Error SR084"),
        QueryTooHeavy("the endpoint refused the query as too heavy before running it"),
    ],
    ids=["syntax", "timeout", "evaluation", "too-heavy"],
)
def test_errors_caused_by_the_query_are_recorded_and_replayed(tmp_path: Path, error: BackendError) -> None:
    live = CountingBackend(failing_with(error))
    query, limits = guard_query("SELECT * WHERE { ?s ?p }"), ExecutionLimits(deadline_s=2)
    with pytest.raises(type(error)):
        RecordReplayBackend(live, cache_dir=tmp_path, mode=CacheMode.RECORD).execute(query, limits)

    offline = CountingBackend(never_called)
    with pytest.raises(type(error)) as replayed:
        RecordReplayBackend(offline, cache_dir=tmp_path, mode=CacheMode.REPLAY).execute(query, limits)
    assert offline.calls == 0
    assert type(replayed.value) is type(error)
    assert replayed.value.message == error.message
    if isinstance(error, QuerySyntaxError):
        assert isinstance(replayed.value, QuerySyntaxError)
        assert replayed.value.server_text == error.server_text


@pytest.mark.parametrize(
    "error",
    [EndpointThrottled("slow down", retry_after_s=7), EndpointUnavailable("refused"), BadResponse("html")],
    ids=["throttled", "unavailable", "bad-response"],
)
def test_transient_errors_are_never_recorded(tmp_path: Path, error: BackendError) -> None:
    live = CountingBackend(failing_with(error))
    query = guard_query("SELECT * WHERE { ?s ?p ?o }")
    with pytest.raises(type(error)):
        RecordReplayBackend(live, cache_dir=tmp_path, mode=CacheMode.REPLAY_OR_RECORD).execute(query)
    assert cache_files(tmp_path) == []
    with pytest.raises(CacheMiss):
        RecordReplayBackend(CountingBackend(never_called), cache_dir=tmp_path, mode=CacheMode.REPLAY).execute(query)


def test_replay_miss_raises_cache_miss_and_makes_no_live_call(tmp_path: Path) -> None:
    offline = CountingBackend(never_called)
    with pytest.raises(CacheMiss, match="no recording") as caught:
        RecordReplayBackend(offline, cache_dir=tmp_path, mode=CacheMode.REPLAY).execute(guard_query("ASK {}"))
    assert offline.calls == 0
    assert "no live call was made" in caught.value.message


def test_replay_or_record_records_misses_then_replays_them(tmp_path: Path) -> None:
    live = CountingBackend(answer_with_row("first"))
    cached = RecordReplayBackend(live, cache_dir=tmp_path, mode=CacheMode.REPLAY_OR_RECORD)
    query = guard_query("SELECT ?x WHERE { ?x ?p ?o }")
    first = cached.execute(query)
    live.behaviour = answer_with_row("changed")
    second = cached.execute(query)
    assert live.calls == 1
    assert second.to_dict() == first.to_dict()
    assert second.column("x") == [Term("literal", "first")]


def test_record_mode_always_calls_live_and_overwrites(tmp_path: Path) -> None:
    live = CountingBackend(answer_with_row("old"))
    recorder = RecordReplayBackend(live, cache_dir=tmp_path, mode=CacheMode.RECORD)
    query = guard_query("SELECT ?x WHERE { ?x ?p ?o }")
    recorder.execute(query)
    live.behaviour = answer_with_row("new")
    recorder.execute(query)
    assert live.calls == 2
    replayed = RecordReplayBackend(CountingBackend(never_called), cache_dir=tmp_path, mode=CacheMode.REPLAY)
    assert replayed.execute(query).column("x") == [Term("literal", "new")]
    assert len(cache_files(tmp_path)) == 1


def test_off_mode_passes_through_and_writes_nothing(tmp_path: Path) -> None:
    live = CountingBackend(answer_with_row("v"))
    cached = RecordReplayBackend(live, cache_dir=tmp_path / "cache", mode=CacheMode.OFF)
    cached.execute(guard_query("SELECT ?x WHERE { ?x ?p ?o }"))
    cached.execute(guard_query("SELECT ?x WHERE { ?x ?p ?o }"))
    assert live.calls == 2
    assert not (tmp_path / "cache").exists()


def test_layout_and_comment_differences_share_one_entry(tmp_path: Path) -> None:
    live = CountingBackend(answer_with_row("v"))
    RecordReplayBackend(live, cache_dir=tmp_path, mode=CacheMode.RECORD).execute(
        guard_query('SELECT ?x WHERE { ?x <http://example.org/name> "Ada  Lovelace" }')
    )
    replayer = RecordReplayBackend(CountingBackend(never_called), cache_dir=tmp_path, mode=CacheMode.REPLAY)
    same = '# who?\nSELECT ?x\n  WHERE {\n\t?x <http://example.org/name>   "Ada  Lovelace"  # exact name\n}\n'
    assert replayer.execute(guard_query(same)).column("x") == [Term("literal", "v")]


@pytest.mark.parametrize(
    "different",
    [
        'SELECT ?x WHERE { ?x <http://example.org/name> "Ada Lovelace" }',
        'SELECT ?x WHERE { ?x <http://example.org/name> "Ada  Lovelace # x" }',
        'SELECT ?x WHERE { ?x <http://example.org/Name> "Ada  Lovelace" }',
    ],
    ids=["whitespace-in-literal", "hash-in-literal", "iri-case"],
)
def test_differences_inside_literals_or_iris_miss(tmp_path: Path, different: str) -> None:
    live = CountingBackend(answer_with_row("v"))
    RecordReplayBackend(live, cache_dir=tmp_path, mode=CacheMode.RECORD).execute(
        guard_query('SELECT ?x WHERE { ?x <http://example.org/name> "Ada  Lovelace" }')
    )
    with pytest.raises(CacheMiss):
        RecordReplayBackend(CountingBackend(never_called), cache_dir=tmp_path, mode=CacheMode.REPLAY).execute(
            guard_query(different)
        )


def test_row_and_byte_caps_are_part_of_the_key_but_the_deadline_is_not(tmp_path: Path) -> None:
    query = guard_query("SELECT ?x WHERE { ?x ?p ?o }")
    RecordReplayBackend(CountingBackend(answer_with_row("v")), cache_dir=tmp_path, mode=CacheMode.RECORD).execute(
        query, ExecutionLimits(max_rows=10, deadline_s=5)
    )
    replayer = RecordReplayBackend(CountingBackend(never_called), cache_dir=tmp_path, mode=CacheMode.REPLAY)
    assert len(replayer.execute(query, ExecutionLimits(max_rows=10, deadline_s=60))) == 1
    for other in (ExecutionLimits(max_rows=11), ExecutionLimits(max_rows=10, max_bytes=1024)):
        with pytest.raises(CacheMiss):
            replayer.execute(query, other)


def test_different_endpoints_do_not_share_recordings(tmp_path: Path) -> None:
    query = guard_query("SELECT ?x WHERE { ?x ?p ?o }")
    RecordReplayBackend(
        CountingBackend(answer_with_row("v"), "kg:a"), cache_dir=tmp_path, mode=CacheMode.RECORD
    ).execute(query)
    with pytest.raises(CacheMiss):
        RecordReplayBackend(CountingBackend(never_called, "kg:b"), cache_dir=tmp_path, mode=CacheMode.REPLAY).execute(
            query
        )


def test_recorded_timeout_is_not_replayed_for_a_longer_deadline(tmp_path: Path) -> None:
    query = guard_query("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f }")
    with pytest.raises(QueryTimeout):
        RecordReplayBackend(
            CountingBackend(failing_with(QueryTimeout("too slow"))), cache_dir=tmp_path, mode=CacheMode.RECORD
        ).execute(query, ExecutionLimits(deadline_s=1))
    offline = CountingBackend(never_called)
    replayer = RecordReplayBackend(offline, cache_dir=tmp_path, mode=CacheMode.REPLAY)
    with pytest.raises(QueryTimeout):
        replayer.execute(query, ExecutionLimits(deadline_s=0.5))
    with pytest.raises(CacheMiss, match="1 s deadline"):
        replayer.execute(query, ExecutionLimits(deadline_s=30))
    assert offline.calls == 0

    live = CountingBackend(answer_with_row("9000000"))
    rerun = RecordReplayBackend(live, cache_dir=tmp_path, mode=CacheMode.REPLAY_OR_RECORD)
    assert rerun.execute(query, ExecutionLimits(deadline_s=30)).column("x") == [Term("literal", "9000000")]
    assert live.calls == 1


def test_recording_holds_the_query_result_and_metadata(tmp_path: Path) -> None:
    query = guard_query("SELECT ?x   WHERE { ?x ?p ?o }  # c")
    backend = RecordReplayBackend(CountingBackend(answer_with_row("v")), cache_dir=tmp_path, mode=CacheMode.RECORD)
    backend.execute(query, ExecutionLimits(max_rows=7))
    (path,) = cache_files(tmp_path)
    assert path == backend.path_for(query, ExecutionLimits(max_rows=7))
    entry = json.loads(path.read_text(encoding="utf-8"))
    assert entry["format"] == CACHE_FORMAT
    assert entry["key"] == path.stem
    assert entry["endpoint_id"] == "fake:kg"
    assert entry["query"] == query.text
    assert entry["normalised_query"] == "SELECT ?x WHERE { ?x ?p ?o }"
    assert entry["limits"]["max_rows"] == 7
    assert entry["recorded_at"].endswith("+00:00")
    assert entry["outcome"] == "result"
    assert entry["result"]["complete"] is True and entry["result"]["truncated"] is False
    assert entry["result"]["elapsed_s"] == 0.01
    assert entry["result"]["result"]["results"]["bindings"] == [{"x": {"type": "literal", "value": "v"}}]
    assert [p.name for p in path.parent.iterdir()] == [path.name], "a temporary file was left behind"


def test_failed_write_leaves_neither_a_recording_nor_a_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    backend = RecordReplayBackend(CountingBackend(answer_with_row("v")), cache_dir=tmp_path, mode=CacheMode.RECORD)
    with pytest.raises(ConfigurationError, match="disk full"):  # typed, not a raw OSError (issue 10, hole 9)
        backend.execute(guard_query("SELECT ?x WHERE { ?x ?p ?o }"))
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def _break_json(entry: dict[str, Any], raw: str) -> str:
    return raw[: len(raw) // 2]


def _not_an_object(entry: dict[str, Any], raw: str) -> str:
    return json.dumps([entry])


def _other_format(entry: dict[str, Any], raw: str) -> str:
    return json.dumps({**entry, "format": "something-else/9"})


def _wrong_key(entry: dict[str, Any], raw: str) -> str:
    return json.dumps({**entry, "key": "0" * 64})


def _bad_bindings(entry: dict[str, Any], raw: str) -> str:
    entry["result"]["result"]["results"]["bindings"] = ["not-a-binding"]
    return json.dumps(entry)


def _bad_term(entry: dict[str, Any], raw: str) -> str:
    entry["result"]["result"]["results"]["bindings"] = [{"x": "plain string"}]
    return json.dumps(entry)


def _unknown_error(entry: dict[str, Any], raw: str) -> str:
    return json.dumps({**entry, "outcome": "error", "error": {"type": "EndpointThrottled", "message": "m"}})


def _not_utf8(entry: dict[str, Any], raw: str) -> str:
    return "\udcff"  # written with errors="surrogateescape" below: an invalid UTF-8 byte


@pytest.mark.parametrize(
    "corrupt",
    [_break_json, _not_an_object, _other_format, _wrong_key, _bad_bindings, _bad_term, _unknown_error, _not_utf8],
)
@pytest.mark.parametrize("mode", [CacheMode.REPLAY, CacheMode.REPLAY_OR_RECORD])
def test_corrupted_recording_is_a_typed_error(
    tmp_path: Path, corrupt: Callable[[dict[str, Any], str], str], mode: CacheMode
) -> None:
    query = guard_query("SELECT ?x WHERE { ?x ?p ?o }")
    RecordReplayBackend(CountingBackend(answer_with_row("v")), cache_dir=tmp_path, mode=CacheMode.RECORD).execute(query)
    (path,) = cache_files(tmp_path)
    raw = path.read_text(encoding="utf-8")
    path.write_text(corrupt(json.loads(raw), raw), encoding="utf-8", errors="surrogateescape")

    offline = CountingBackend(never_called)
    with pytest.raises(CacheCorrupted, match="delete it") as caught:
        RecordReplayBackend(offline, cache_dir=tmp_path, mode=mode).execute(query)
    assert caught.value.path == str(path)
    assert offline.calls == 0

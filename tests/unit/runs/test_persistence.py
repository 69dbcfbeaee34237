"""The checkpoint database: WAL and busy timeout, concurrent writers (E7), resume identity (E6), durable resume."""

from __future__ import annotations

import operator
import sqlite3
import threading
import time
from pathlib import Path
from typing import Annotated, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.runs.persistence import (
    CheckpointStore,
    CheckpointTarget,
    ResumeMismatch,
    RunIdentity,
    UnknownThread,
    checkpoint_target,
    connect,
    default_checkpoint_path,
    moved_server_only,
)
from tests.support.postgres_server import PostgresServer

SETUP = RunIdentity(graph="/data/space.ttl", model="m at http://h/v1")


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> CheckpointTarget:
    """A fresh checkpoint database: a SQLite file, or a new database on the session's real PostgreSQL."""
    if request.param == "sqlite":
        return tmp_path / "c.sqlite"
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.new_database()


def test_database_runs_in_wal_mode_with_a_busy_timeout(tmp_path: Path) -> None:
    conn = connect(tmp_path / "c.sqlite", busy_timeout_s=7)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 7000
    conn.close()


def test_default_path_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SAGA_CHECKPOINT_DB", str(tmp_path / "x.sqlite"))
    assert default_checkpoint_path() == tmp_path / "x.sqlite"
    monkeypatch.delenv("SAGA_CHECKPOINT_DB")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_checkpoint_path() == tmp_path / "saga-kgqa" / "checkpoints.sqlite"
    monkeypatch.setenv("SAGA_CHECKPOINT_DB", "postgresql://saga@db.internal:5432/runs")
    assert default_checkpoint_path() == "postgresql://saga@db.internal:5432/runs"
    assert checkpoint_target("runs/c.sqlite") == Path("runs/c.sqlite")


def test_registry_and_saver_share_one_postgres_database(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    with CheckpointStore(url) as store:
        store.start_thread("t1", SETUP, "q")
        graph = _appender("p").compile(checkpointer=store.saver)
        graph.invoke({"seen": []}, {"configurable": {"thread_id": "t1"}}, durability="sync")
    import psycopg

    with psycopg.connect(url) as conn:
        tables = {row[0] for row in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        created = conn.execute("SELECT created FROM saga_threads WHERE thread_id = 't1'").fetchone()
    assert {"saga_threads", "checkpoints", "checkpoint_writes"} <= tables
    assert created is not None and abs(created[0] - time.time()) < 3600  # full precision, not float4


def test_concurrent_threads_share_one_postgres_pool(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    errors: list[BaseException] = []
    with CheckpointStore(url) as store:
        graph = _appender("c").compile(checkpointer=store.saver)

        def worker(index: int) -> None:
            try:
                for run in range(3):
                    graph.invoke({"seen": []}, {"configurable": {"thread_id": f"w{index}-{run}"}}, durability="sync")
            except BaseException as exc:
                errors.append(exc)

        workers = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
        for thread in workers:
            thread.start()
        for thread in workers:
            thread.join()
        assert errors == []
        assert graph.get_state({"configurable": {"thread_id": "w3-2"}}).values["seen"] == ["c", "c"]


def test_unreachable_postgres_is_a_configuration_error(tmp_path: Path) -> None:
    from tests.support.virtuoso_server import free_port

    with pytest.raises(ConfigurationError, match="cannot open the checkpoint database") as caught:
        CheckpointStore(f"postgresql://saga:secret@127.0.0.1:{free_port()}/none?connect_timeout=2")
    assert "secret" not in caught.value.message and "saga:***@" in caught.value.message


def test_resume_with_the_same_setup_is_allowed(target: CheckpointTarget) -> None:
    with CheckpointStore(target) as store:
        store.start_thread("t1", SETUP, "Who flew Apollo 13?")
    with CheckpointStore(target) as store:
        record = store.check_resume("t1", SETUP)
    assert record.question == "Who flew Apollo 13?"


def test_resume_with_another_model_or_graph_is_refused_unless_forced(target: CheckpointTarget) -> None:
    other = RunIdentity(graph="https://query.wikidata.org/sparql", model="other at http://h/v1")
    with CheckpointStore(target) as store:
        store.start_thread("t1", SETUP, "q")
        with pytest.raises(ResumeMismatch, match="--force") as caught:
            store.check_resume("t1", other)
        assert "graph was '/data/space.ttl'" in caught.value.message
        assert "model was" in caught.value.message
        assert store.check_resume("t1", other, force=True).identity == other
        assert store.check_resume("t1", other).identity == other


def test_unknown_thread_and_duplicate_thread_are_typed_errors(target: CheckpointTarget) -> None:
    with CheckpointStore(target) as store:
        with pytest.raises(UnknownThread):
            store.check_resume("nope", SETUP)
        store.start_thread("t1", SETUP, "q")
        with pytest.raises(ConfigurationError, match="--resume t1"):
            store.start_thread("t1", SETUP, "q")


class Counter(TypedDict):
    seen: Annotated[list[str], operator.add]


def _appender(name: str) -> StateGraph[Counter, None, Counter, Counter]:
    builder: StateGraph[Counter, None, Counter, Counter] = StateGraph(Counter)
    builder.add_node("a", lambda s: {"seen": [name]})
    builder.add_node("b", lambda s: {"seen": [name]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", END)
    return builder


def test_concurrent_writers_share_one_database_without_lock_errors(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        try:
            with CheckpointStore(path, busy_timeout_s=30) as store:
                graph = _appender(f"w{index}").compile(checkpointer=store.saver)
                for run in range(5):
                    config = {"configurable": {"thread_id": f"w{index}-{run}"}}
                    graph.invoke({"seen": []}, config, durability="sync")
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    assert errors == []
    with CheckpointStore(path) as store:
        graph = _appender("x").compile(checkpointer=store.saver)
        state = graph.get_state({"configurable": {"thread_id": "w3-4"}})
    assert state.values["seen"] == ["w3", "w3"]


def _open_at_once(target: CheckpointTarget, openers: int) -> list[str]:
    """Open ``target`` from ``openers`` threads released together; what each failure raised."""
    failures: list[str] = []
    start = threading.Barrier(openers)

    def opener() -> None:
        start.wait()
        try:
            with CheckpointStore(target) as store:
                store.threads()
        except Exception as exc:  # each failure is what the callers' assertions list
            failures.append(repr(exc))

    threads = [threading.Thread(target=opener) for _ in range(openers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def test_concurrent_first_opens_of_a_new_database_never_find_it_locked(tmp_path: Path) -> None:
    # Faults E7b: eight threads opening one new file at once. Switching it to WAL takes a lock that SQLite's busy
    # timeout does not wait for, so a loser got "database is locked" as a ConfigurationError (about 1 round in 20
    # with four threads), and a server's first requests could fail.
    failures: list[str] = []
    for round_ in range(40):
        path = tmp_path / f"fresh-{round_}.sqlite"
        failures += _open_at_once(path, 8)
        plain = sqlite3.connect(path)  # not through connect(), which would switch it itself
        try:
            assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        finally:
            plain.close()
    assert failures == []


def test_concurrent_first_opens_of_a_new_postgres_database_all_succeed(postgres: PostgresServer) -> None:
    # Faults E7c: shard workers starting at once against one new PostgreSQL database each create LangGraph's
    # tables, run its migrations and create saga's thread table.
    failures = [failure for _ in range(5) for failure in _open_at_once(postgres.new_database(), 6)]
    assert failures == []


def test_failed_run_resumes_from_a_new_connection_without_repeating_completed_nodes(target: CheckpointTarget) -> None:
    calls: list[str] = []
    fail = {"b": True}

    def node_a(state: Counter) -> Counter:
        calls.append("a")
        return {"seen": ["a"]}

    def node_b(state: Counter) -> Counter:
        calls.append("b")
        if fail["b"]:
            raise ConnectionError("injected")
        return {"seen": ["b"]}

    builder: StateGraph[Counter, None, Counter, Counter] = StateGraph(Counter)
    builder.add_node("a", node_a)
    builder.add_node("b", node_b)
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", END)
    config = {"configurable": {"thread_id": "t"}}
    with CheckpointStore(target) as store, pytest.raises(ConnectionError):
        builder.compile(checkpointer=store.saver).invoke({"seen": []}, config, durability="sync")
    fail["b"] = False
    with CheckpointStore(target) as store:
        graph = builder.compile(checkpointer=store.saver)
        assert graph.get_state(config).next == ("b",)
        out = graph.invoke(None, config, durability="sync")
    assert out["seen"] == ["a", "b"]
    assert calls == ["a", "b", "b"]


def test_only_a_moved_server_of_the_same_model_counts_as_moved() -> None:
    assert moved_server_only("m at http://127.0.0.1:8000/v1", "m at http://127.0.0.1:9000/v1")
    assert moved_server_only("m at http://gpu-a:8000/v1", "m at http://gpu-b:8000/v1/")
    assert not moved_server_only("m at http://h:8000/v1", "m2 at http://h:9000/v1")  # another model
    assert not moved_server_only("m at http://h:8000/v1", "m at http://h:8000/v2")  # another API root
    assert not moved_server_only("m at http://h:8000/v1", "m at https://h:8000/v1")
    assert not moved_server_only("factory x", "factory y")


def test_resume_on_a_moved_server_warns_and_updates_the_record(tmp_path: Path) -> None:
    warnings: list[str] = []
    with CheckpointStore(tmp_path / "c.sqlite") as store:
        store.start_thread("t", RunIdentity("g", "m at http://127.0.0.1:8000/v1"), "q")
        moved = RunIdentity("g", "m at http://127.0.0.1:9000/v1")
        assert store.check_resume("t", moved, warn=warnings.append).identity == moved
        assert len(warnings) == 1 and "9000" in warnings[0]
        assert store.check_resume("t", moved, warn=warnings.append).identity == moved
        assert len(warnings) == 1  # recorded: the next resume is plain
        with pytest.raises(ResumeMismatch):
            store.check_resume("t", RunIdentity("other graph", "m at http://127.0.0.1:7000/v1"))

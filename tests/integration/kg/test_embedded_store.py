"""The embedded pyoxigraph store: loading, read-only defence, row caps and the killable worker.

Covers docs/faults.md C1 (row cap by lazy iteration), C2 (deadline kills the worker, the
host stays responsive) and C3 (updates that slip past the guard change nothing).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.errors import EndpointUnavailable, QueryCrashedEngine, QuerySyntaxError, QueryTimeout
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.query import CheckedQuery, QueryOrigin, from_template
from saga_kgqa.kg.core.result import QueryForm, Term
from saga_kgqa.kg.embedded.store import EmbeddedStore

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
ORIGINS: list[QueryOrigin] = ["guard", "template"]
SUBJECTS = 1000  # three triples each: 3000 triples, as in faults.md C1

ITEM_TERMS = [
    Term("literal", "Zürich", lang="de"),
    Term("literal", "plain string"),
    Term("literal", "42", datatype=f"{XSD}integer"),
    Term("literal", "2024-02-29", datatype=f"{XSD}date"),
    Term("literal", "x y", datatype=f"{EX}customType"),
    Term("literal", 'quote " and\nnewline'),
    Term("bnode", "node1"),
    Term("uri", f"{EX}other"),
]
SPECIAL_NT = """\
<http://example.org/item> <http://example.org/v> "Zürich"@de .
<http://example.org/item> <http://example.org/v> "plain string" .
<http://example.org/item> <http://example.org/v> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://example.org/item> <http://example.org/v> "2024-02-29"^^<http://www.w3.org/2001/XMLSchema#date> .
<http://example.org/item> <http://example.org/v> "x y"^^<http://example.org/customType> .
<http://example.org/item> <http://example.org/v> "quote \\" and\\nnewline" .
<http://example.org/item> <http://example.org/v> _:node1 .
<http://example.org/item> <http://example.org/v> <http://example.org/other> .
"""


def query(text: str, origin: QueryOrigin, form: QueryForm = "SELECT") -> CheckedQuery:
    """A query as a backend receives it; built by hand so no guard is involved (C3)."""
    return CheckedQuery(text=text, form=form, origin=origin, source_text=text)


def triple_count(store: EmbeddedStore) -> int:
    result = store.execute(from_template("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"))
    return int(result.column("n")[0].value)


def write_graph(directory: Path) -> Path:
    lines = []
    for i in range(SUBJECTS):
        lines.append(f"<{EX}s{i}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{EX}Thing> .\n")
        lines.append(f'<{EX}s{i}> <http://www.w3.org/2000/01/rdf-schema#label> "thing {i}"@en .\n')
        lines.append(f'<{EX}s{i}> <{EX}rank> "{i}"^^<{XSD}integer> .\n')
    path = directory / "graph.nt"
    path.write_text("".join(lines) + SPECIAL_NT, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_graph(tmp_path_factory.mktemp("graph"))


@pytest.fixture(scope="module")
def store(graph_file: Path) -> Iterator[EmbeddedStore]:
    with EmbeddedStore.from_files([graph_file]) as opened:
        yield opened


def is_reaped(pid: int) -> bool:
    """True when no process (not even a zombie) has this id any more."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def wait_reaped(pid: int, within_s: float = 5.0) -> bool:
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        if is_reaped(pid):
            return True
        time.sleep(0.02)
    return False


# --- C1: a cross product without LIMIT is cut by the row cap, on both paths --------------------------


@pytest.mark.parametrize("origin", ORIGINS)
def test_c1_cross_product_without_limit_is_cut_by_row_cap(store: EmbeddedStore, origin: QueryOrigin) -> None:
    store.execute(query("ASK { ?s ?p ?o }", origin, "ASK"))  # the worker's start-up is not what is measured
    started = time.monotonic()
    result = store.execute(
        query("SELECT * WHERE { ?a ?b ?c . ?d ?e ?f }", origin), ExecutionLimits(max_rows=500, deadline_s=10)
    )
    took = time.monotonic() - started
    assert len(result) == 500
    assert result.truncated is True
    assert result.variables == ["a", "b", "c", "d", "e", "f"]
    # Reading 9 M rows (or counting them) takes seconds; stopping at the cap is near-instant.
    assert took < 1.5, f"row cap did not stop the read early ({took:.2f} s)"


@pytest.mark.parametrize("origin", ORIGINS)
def test_small_answer_is_not_marked_truncated(store: EmbeddedStore, origin: QueryOrigin) -> None:
    result = store.execute(
        query(f"SELECT ?o WHERE {{ <{EX}item> <{EX}v> ?o }}", origin), ExecutionLimits(max_rows=len(ITEM_TERMS))
    )
    assert len(result) == len(ITEM_TERMS)
    assert result.truncated is False


# --- C2: a runaway query is killed at the deadline; the host stays responsive -----------------------


def test_c2_count_over_huge_cross_product_times_out_and_worker_restarts(store: EmbeddedStore) -> None:
    store.execute(query("ASK { ?s ?p ?o }", "guard", "ASK"))  # make sure a worker is up
    old_pid = store.worker_pid
    assert old_pid is not None
    ticks: list[float] = []
    stop = threading.Event()

    def ticker() -> None:
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    thread = threading.Thread(target=ticker)
    thread.start()
    started = time.monotonic()
    try:
        with pytest.raises(QueryTimeout, match="deadline"):
            store.execute(
                query("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }", "guard"),
                ExecutionLimits(deadline_s=1.0),
            )
        took = time.monotonic() - started
    finally:
        stop.set()
        thread.join()
    assert 0.95 <= took < 3.0, f"timeout fired after {took:.2f} s for a 1 s deadline"
    gaps = [later - earlier for earlier, later in itertools.pairwise(ticks)]
    assert len(ticks) >= 20, "the ticker thread barely ran while the query was waited for"
    assert max(gaps) < 0.5, f"the host process stalled for {max(gaps):.2f} s"
    assert wait_reaped(old_pid), "the killed worker was left running or as a zombie"
    assert store.worker_pid is None

    result = store.execute(query(f"SELECT ?s WHERE {{ ?s <{EX}rank> 7 }}", "guard"))
    assert result.column("s") == [Term("uri", f"{EX}s7")]
    assert store.worker_pid not in (None, old_pid)


def test_waiting_for_a_busy_worker_counts_against_the_deadline(store: EmbeddedStore) -> None:
    errors: list[BaseException] = []

    def runaway() -> None:
        try:
            store.execute(
                query("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }", "guard"),
                ExecutionLimits(deadline_s=1.5),
            )
        except QueryTimeout as exc:
            errors.append(exc)

    thread = threading.Thread(target=runaway)
    thread.start()
    time.sleep(0.3)  # let the runaway query take the worker
    started = time.monotonic()
    with pytest.raises(QueryTimeout, match="waited"):
        store.execute(query("ASK { ?s ?p ?o }", "guard", "ASK"), ExecutionLimits(deadline_s=0.2))
    assert time.monotonic() - started < 0.9
    thread.join()
    assert len(errors) == 1


class Interrupted(BaseException):
    """Stands in for KeyboardInterrupt without upsetting pytest."""


def test_interrupted_wait_stops_the_worker_so_its_late_reply_cannot_answer_the_next_query(
    store: EmbeddedStore,
) -> None:
    store.execute(query("ASK { ?s ?p ?o }", "guard", "ASK"))
    pid = store.worker_pid
    assert pid is not None

    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted

    previous = signal.signal(signal.SIGUSR1, interrupt)
    timer = threading.Timer(0.3, os.kill, args=(os.getpid(), signal.SIGUSR1))
    timer.start()
    try:
        with pytest.raises(Interrupted):
            # About a second of work: long enough to interrupt, short enough that a worker
            # left running would deliver its stale COUNT reply to the ASK below.
            store.execute(
                query("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f }", "guard"), ExecutionLimits(deadline_s=10)
            )
    finally:
        timer.cancel()
        signal.signal(signal.SIGUSR1, previous)
    assert wait_reaped(pid)
    result = store.execute(query("ASK { ?s ?p ?o }", "guard", "ASK"))
    assert result.form == "ASK" and result.boolean is True


def test_exhausted_deadline_fails_fast_and_keeps_the_worker(store: EmbeddedStore) -> None:
    store.execute(query("ASK { ?s ?p ?o }", "guard", "ASK"))
    pid = store.worker_pid
    with pytest.raises(QueryTimeout):
        store.execute(query("ASK { ?s ?p ?o }", "guard", "ASK"), ExecutionLimits(deadline_s=0))
    assert store.worker_pid == pid


# --- C3: updates that slip past the guard fail typed and change nothing ------------------------------

UPDATES = [
    f"INSERT DATA {{ <{EX}evil> <{EX}p> <{EX}o> }}",
    "DELETE WHERE { ?s ?p ?o }",
    "CLEAR ALL",
    "DROP ALL",
    "LOAD <http://127.0.0.1:9/data.ttl>",
    f"SELECT * WHERE {{ ?s ?p ?o }} ; INSERT DATA {{ <{EX}evil> <{EX}p> <{EX}o> }}",
    f"# comment first\ninsert data {{ <{EX}evil> <{EX}p> <{EX}o> }}",
]


@pytest.mark.parametrize("origin", ORIGINS)
@pytest.mark.parametrize("update", UPDATES)
def test_c3_update_bypassing_the_guard_fails_and_store_is_unchanged(
    store: EmbeddedStore, origin: QueryOrigin, update: str
) -> None:
    before = triple_count(store)
    with pytest.raises(QuerySyntaxError):
        store.execute(query(update, origin))
    assert triple_count(store) == before == SUBJECTS * 3 + len(ITEM_TERMS)
    assert len(store) == before


# --- errors from the store come back typed ------------------------------------------------------------


@pytest.mark.parametrize("origin", ORIGINS)
def test_syntax_error_carries_the_position(store: EmbeddedStore, origin: QueryOrigin) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        store.execute(query("SELECT * WHERE { ?s ?p }", origin))
    assert "1:" in caught.value.server_text
    assert caught.value.query_at_fault is True


def wait_exited(pid: int, within_s: float = 5.0) -> bool:
    """True once the process has exited (a zombie or gone): its server child's death signal is then queued."""
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.01)
    return False


def test_worker_killed_while_idle_is_replaced_transparently(store: EmbeddedStore) -> None:
    store.execute(query("ASK { ?s ?p ?o }", "guard", "ASK"))
    pid = store.worker_pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    # SIGKILL is delivered when the watchdog next runs; until it has exited, its server child (which
    # holds the pipes) may still answer one more query, and nothing would have been replaced yet.
    assert wait_exited(pid)
    result = store.execute(query("ASK { ?s ?p ?o }", "guard", "ASK"))
    assert result.boolean is True
    assert store.worker_pid not in (None, pid)
    assert wait_reaped(pid)


def test_query_that_crashes_the_engine_is_a_typed_error_and_never_retried(store: EmbeddedStore) -> None:
    # pyoxigraph 0.5.13 overflows its stack (SIGSEGV) on 10 000 nested groups: run in-process,
    # this would take the whole host down. The guard rejects such queries long before.
    depth = 10_000
    crasher = "SELECT * WHERE " + "{" * depth + " ?s ?p ?o " + "}" * depth
    starts = store.worker_starts
    with pytest.raises(QueryCrashedEngine, match="not retried"):
        store.execute(query(crasher, "guard"))
    assert store.worker_starts <= starts + 1, "the query that killed its worker was sent again"
    assert store.execute(query("ASK { ?s ?p ?o }", "guard", "ASK")).boolean is True


def test_concurrent_guard_queries_from_threads_all_get_their_own_answer(store: EmbeddedStore) -> None:
    answers: dict[int, list[Term]] = {}
    failures: list[BaseException] = []

    def ask(i: int) -> None:
        try:
            result = store.execute(query(f"SELECT ?s WHERE {{ ?s <{EX}rank> {i} }}", "guard"))
            answers[i] = result.column("s")
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert answers == {i: [Term("uri", f"{EX}s{i}")] for i in range(12)}


# --- results are lossless and identical on both paths -------------------------------------------------


@pytest.mark.parametrize("origin", ORIGINS)
def test_terms_are_lossless(store: EmbeddedStore, origin: QueryOrigin) -> None:
    result = store.execute(query(f"SELECT ?o WHERE {{ <{EX}item> <{EX}v> ?o }}", origin))
    got = result.column("o")
    blank = [term for term in got if term.kind == "bnode"]
    assert len(blank) == 1
    # Blank node labels are the store's own; only the kind and the absence of extras are stable.
    assert blank[0].datatype is None and blank[0].lang is None
    assert sorted((t for t in got if t.kind != "bnode"), key=repr) == sorted(
        (t for t in ITEM_TERMS if t.kind != "bnode"), key=repr
    )


@pytest.mark.parametrize(
    ("text", "form"),
    [
        (
            f"SELECT ?s ?label WHERE {{ ?s <{EX}rank> ?r ; <http://www.w3.org/2000/01/rdf-schema#label> ?label "
            f"FILTER(?r < 5) OPTIONAL {{ ?s <{EX}missing> ?m }} }} ORDER BY ?s",
            "SELECT",
        ),
        (f"ASK {{ <{EX}s3> <{EX}rank> 3 }}", "ASK"),
        (f"ASK {{ <{EX}s3> <{EX}rank> 4 }}", "ASK"),
        (f"CONSTRUCT {{ ?s <{EX}seen> ?r }} WHERE {{ ?s <{EX}rank> ?r FILTER(?r < 3) }}", "CONSTRUCT"),
    ],
)
def test_worker_and_in_process_paths_agree(store: EmbeddedStore, text: str, form: QueryForm) -> None:
    in_process = store.execute(query(text, "template", form))
    in_worker = store.execute(query(text, "guard", form))
    assert in_worker.to_sparql_json() == in_process.to_sparql_json()
    assert in_worker.form == in_process.form == form
    if form == "SELECT":
        assert len(in_worker) == 5
        assert in_worker.column("label")[0] == Term("literal", "thing 0", lang="en")


# --- closing ------------------------------------------------------------------------------------------


def test_close_stops_the_worker_deletes_the_temp_store_and_refuses_queries(graph_file: Path) -> None:
    opened = EmbeddedStore.from_files([graph_file])
    opened.execute(query("ASK { ?s ?p ?o }", "guard", "ASK"))
    pid = opened.worker_pid
    assert pid is not None
    opened.close()
    assert wait_reaped(pid)
    assert not opened.store_dir.exists()
    for origin in ORIGINS:
        with pytest.raises(EndpointUnavailable, match="closed"):
            opened.execute(query("ASK { ?s ?p ?o }", origin, "ASK"))


# --- prestart: the worker starts while the guard checks, without any query sent ---------------------


def test_prestart_starts_the_worker_that_the_next_guard_query_uses(graph_file: Path) -> None:
    with EmbeddedStore.from_files([graph_file]) as store:
        assert store.worker_pid is None
        store.prestart()
        pid = store.worker_pid
        assert pid is not None and store.worker_starts == 1
        store.prestart()  # already running: no second process
        assert store.worker_starts == 1
        result = store.execute(query("ASK { ?s ?p ?o }", "guard", "ASK"))
        assert result.boolean is True
        assert (store.worker_pid, store.worker_starts) == (pid, 1)


def test_prestart_never_waits_for_a_query_running_in_another_thread(store: EmbeddedStore) -> None:
    store.execute(query("ASK { ?s ?p ?o }", "guard", "ASK"))
    pid = store.worker_pid
    busy = threading.Event()

    def runaway() -> None:
        busy.set()
        with contextlib.suppress(QueryTimeout):
            store.execute(
                query("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }", "guard"),
                ExecutionLimits(deadline_s=3),
            )

    thread = threading.Thread(target=runaway)
    thread.start()
    busy.wait()
    time.sleep(0.3)  # let the runaway query take the worker's lock
    store.prestart()
    assert thread.is_alive(), "prestart waited for the running query instead of returning"
    assert store.worker_pid == pid, "prestart must not replace a busy worker"
    thread.join()


def test_a_worker_killed_after_prestart_is_replaced_for_the_query(store: EmbeddedStore) -> None:
    store.prestart()
    pid = store.worker_pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    result = store.execute(query("ASK { ?s ?p ?o }", "guard", "ASK"))
    assert result.boolean is True
    assert store.worker_pid not in (None, pid)

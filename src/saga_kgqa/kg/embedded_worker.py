"""A killable subprocess that runs untrusted queries on a read-only pyoxigraph store.

pyoxigraph has no query timeout and ``Store.query`` cannot be cancelled, so a runaway
model-written query (a ``COUNT(*)`` over a cross product, docs/faults.md C2) can only be
stopped by ending the process that runs it. :class:`QueryWorker` keeps one persistent
worker process that opens the store directory with ``Store.read_only``, answers queries
sent over a pipe, and is killed when a query runs past its deadline; a fresh worker is
started lazily for the next query.

The worker is started with the ``spawn`` start method, never ``fork``: the host process
runs threads (LangGraph, HTTP clients), and forking a threaded process can deadlock the
child on a lock some other thread held. As with any ``spawn`` child, the host's
``__main__`` module is re-imported in the worker, so host scripts must keep their
top-level code under ``if __name__ == "__main__":``.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Literal

import pyoxigraph as ox

from saga_kgqa.errors import BackendError, EndpointUnavailable, QuerySyntaxError, QueryTimeout
from saga_kgqa.kg.backend import ExecutionLimits
from saga_kgqa.kg.oxigraph_terms import collect_result, has_named_graphs
from saga_kgqa.kg.query import CheckedQuery
from saga_kgqa.kg.result import QueryForm, QueryResult, Row, Term, TermKind

#: One term on the wire: (kind, value, datatype, lang). Plain tuples pickle far faster than dataclasses.
WireTerm = tuple[TermKind, str, str | None, str | None]
WireRow = tuple[WireTerm | None, ...]


@dataclass(frozen=True, slots=True)
class _Request:
    text: str
    form: QueryForm
    max_rows: int


@dataclass(frozen=True, slots=True)
class _Reply:
    status: Literal["ready", "ok", "syntax_error", "io_error", "failed"]
    message: str = ""
    form: QueryForm = "SELECT"
    variables: tuple[str, ...] = ()
    rows: list[WireRow] = field(default_factory=list)
    boolean: bool | None = None
    truncated: bool = False
    notes: tuple[str, ...] = ()


class _WorkerDied(Exception):
    """The worker process ended (crash, kill) while we talked to it."""


def _to_wire(term: Term | None) -> WireTerm | None:
    return None if term is None else (term.kind, term.value, term.datatype, term.lang)


def _answer(store: ox.Store, request: _Request, prefixes: dict[str, str], union: bool) -> _Reply:
    started = time.perf_counter()
    try:
        # Same dataset as the in-process path: the default graph is the union of all graphs.
        raw = store.query(request.text, prefixes=prefixes, use_default_graph_as_union=union)
        # Lazy iteration: the row cap bounds the work, not the size of the full answer.
        result = collect_result(raw, request.form, request.max_rows, started)
    except SyntaxError as exc:
        return _Reply("syntax_error", str(exc))
    except OSError as exc:
        return _Reply("io_error", str(exc))
    except Exception as exc:  # any other pyoxigraph failure must reach the parent as a reply, not kill us
        return _Reply("failed", f"{type(exc).__name__}: {exc}")
    return _Reply(
        "ok",
        form=result.form,
        variables=tuple(result.variables),
        rows=[tuple(_to_wire(row.get(name)) for name in result.variables) for row in result.rows],
        boolean=result.boolean,
        truncated=result.truncated,
        notes=tuple(result.notes),
    )


def serve(conn: Connection, store_dir: str, prefixes: dict[str, str]) -> None:
    """Worker process main loop: open the store read-only, then answer requests until told to stop.

    Args:
        conn: The worker's end of the pipe. ``None`` received on it means "stop".
        store_dir: The on-disk store directory.
        prefixes: Default prefixes of the endpoint profile.
    """
    # Ctrl-C in a terminal reaches the whole process group; the host decides what to do
    # about it, and the worker must not die under a query the host is still waiting for.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform != "win32":
        import resource

        # A worker that crashes (pyoxigraph overflows its stack on absurdly nested
        # queries) must not leave a core dump of the mapped store in the working directory.
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        store = ox.Store.read_only(store_dir)
    except OSError as exc:
        conn.send(_Reply("io_error", f"cannot open store {store_dir}: {exc}"))
        return
    union = has_named_graphs(store)
    conn.send(_Reply("ready"))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return  # the host closed its end or died: nothing left to serve
        if request is None:
            return
        try:
            conn.send(_answer(store, request, prefixes, union))
        except OSError:
            return  # the host stopped listening (it timed out or closed); it will reap us


def _from_wire(reply: _Reply, elapsed_s: float) -> QueryResult:
    if reply.form == "ASK":
        return QueryResult(form="ASK", boolean=reply.boolean, elapsed_s=elapsed_s)
    variables = list(reply.variables)
    rows: list[Row] = []
    for wire_row in reply.rows:
        rows.append({name: Term(*wire) for name, wire in zip(variables, wire_row, strict=True) if wire is not None})
    return QueryResult(
        form=reply.form,
        variables=variables,
        rows=rows,
        truncated=reply.truncated,
        elapsed_s=elapsed_s,
        notes=list(reply.notes),
    )


class QueryWorker:
    """A persistent, killable worker process answering queries on a read-only store.

    Thread-safe: one query at a time goes through the pipe; other callers wait for it,
    and that wait counts against their own deadline.
    """

    def __init__(
        self,
        store_dir: Path,
        prefixes: Mapping[str, str],
        *,
        startup_timeout_s: float = 30.0,
        stop_timeout_s: float = 2.0,
    ) -> None:
        """Prepare a worker; the process itself starts with the first query.

        Args:
            store_dir: The on-disk store directory to open read-only.
            prefixes: Default prefixes passed to every query.
            startup_timeout_s: How long a fresh worker may take to start and open the
                store. Not counted against query deadlines, which bound query work.
            stop_timeout_s: How long a stopping worker gets before it is killed.
        """
        self._store_dir = str(store_dir)
        self._prefixes = dict(prefixes)
        self._startup_timeout_s = startup_timeout_s
        self._stop_timeout_s = stop_timeout_s
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        self._pid: int | None = None
        self._closed = False

    @property
    def pid(self) -> int | None:
        """The process id of the current worker; ``None`` before the first query and after a stop."""
        return self._pid

    def run(self, query: CheckedQuery, limits: ExecutionLimits) -> QueryResult:
        """Run one query in the worker, killing it when the deadline passes.

        Args:
            query: The query to run.
            limits: Deadline and row cap.

        Returns:
            The typed result; ``elapsed_s`` includes the transfer from the worker.

        Raises:
            QueryTimeout: The query ran past ``limits.deadline_s``; the worker was killed.
            QuerySyntaxError: The store rejected the query text.
            EndpointUnavailable: The worker could not start, died twice, or the store is closed.
            BackendError: The store failed to evaluate the query for another reason.
        """
        started = time.perf_counter()
        deadline = started + limits.deadline_s
        if not self._lock.acquire(timeout=max(limits.deadline_s, 0.0)):
            raise QueryTimeout(
                f"the query waited {limits.deadline_s:g} s for the embedded store's query worker and never ran"
            )
        try:
            request = _Request(query.text, query.form, limits.max_rows)
            reply = self._exchange_with_one_restart(request, deadline, limits.deadline_s)
        finally:
            self._lock.release()
        return self._result_or_raise(reply, time.perf_counter() - started)

    def close(self) -> None:
        """Stop the worker process (politely, then by force) and refuse further queries."""
        with self._lock:
            self._closed = True
            conn = self._conn
            if conn is not None:
                # A worker that is already gone cannot be told; _stop below reaps it either way.
                with contextlib.suppress(OSError):
                    conn.send(None)
            self._stop(polite=True)

    def _exchange_with_one_restart(self, request: _Request, deadline: float, budget_s: float) -> _Reply:
        for attempt in (1, 2):
            starting = time.perf_counter()
            conn = self._ensure_started()
            # Starting a worker is our overhead, bounded by startup_timeout_s; the deadline bounds query work.
            deadline += time.perf_counter() - starting
            try:
                return self._exchange(conn, request, deadline, budget_s)
            except _WorkerDied:
                self._stop(polite=False)
                # A worker killed from outside should not fail the query: a fresh one gets one more try.
                if attempt == 2:
                    raise EndpointUnavailable(
                        "the embedded store's query worker died twice while answering this query "
                        "(the store may be damaged, or the query crashes the engine)"
                    ) from None
        raise AssertionError("unreachable: the loop returns or raises")

    def _exchange(self, conn: Connection, request: _Request, deadline: float, budget_s: float) -> _Reply:
        timed_out = QueryTimeout(
            f"the query ran past its {budget_s:g} s deadline and was stopped; narrow it "
            "(anchor an entity, avoid cross products) or lower its LIMIT"
        )
        if deadline <= time.perf_counter():
            raise timed_out  # nothing sent yet: the worker stays usable
        try:
            conn.send(request)
        except OSError as exc:
            raise _WorkerDied from exc
        try:
            # poll() wakes up as soon as the reply arrives or the worker dies (EOF), so a
            # fast query costs no waiting; only a query that runs past the deadline waits it out.
            ready = conn.poll(max(deadline - time.perf_counter(), 0.0))
            reply: _Reply | None = conn.recv() if ready else None
        except (EOFError, OSError) as exc:
            raise _WorkerDied from exc
        except BaseException:
            # Interrupted mid-wait (KeyboardInterrupt): the worker still owes a reply to this
            # request, which would otherwise be read as the answer to the next one.
            self._stop(polite=False)
            raise
        if reply is None:
            self._stop(polite=False)  # the only way to stop a pyoxigraph query
            raise timed_out
        return reply

    def _ensure_started(self) -> Connection:
        if self._closed:
            raise EndpointUnavailable("the embedded store is closed")
        if self._conn is not None and self._process is not None and self._process.is_alive():
            return self._conn
        self._stop(polite=False)
        parent_conn, child_conn = self._context.Pipe(duplex=True)
        process = self._context.Process(
            target=serve,
            args=(child_conn, self._store_dir, self._prefixes),
            name="saga-embedded-query-worker",
            daemon=True,  # never outlive the host, even when close() is forgotten
        )
        process.start()
        # Drop our copy of the child's end, so that the worker dying shows up as EOF here.
        child_conn.close()
        self._process, self._conn = process, parent_conn
        self._pid = process.pid
        why = f"no answer within {self._startup_timeout_s:g} s"
        try:
            if parent_conn.poll(self._startup_timeout_s):
                reply: _Reply = parent_conn.recv()
                if reply.status == "ready":
                    return parent_conn
                why = reply.message
        except (EOFError, OSError):
            why = "it exited while starting"
        self._stop(polite=False)
        raise EndpointUnavailable(f"the embedded store's query worker could not start: {why}")

    def _stop(self, *, polite: bool) -> None:
        process, conn = self._process, self._conn
        self._process, self._conn, self._pid = None, None, None
        if process is not None:
            if polite:
                process.join(self._stop_timeout_s)
            if process.is_alive():
                process.terminate()
                process.join(self._stop_timeout_s)
            if process.is_alive():
                process.kill()
            # join() reaps the child, so no zombie is left behind.
            process.join()
            process.close()
        if conn is not None:
            conn.close()

    @staticmethod
    def _result_or_raise(reply: _Reply, elapsed_s: float) -> QueryResult:
        if reply.status == "ok":
            return _from_wire(reply, elapsed_s)
        if reply.status == "syntax_error":
            raise QuerySyntaxError(f"the store rejected the query: {reply.message}", server_text=reply.message)
        if reply.status == "io_error":
            raise EndpointUnavailable(f"the embedded store failed while answering: {reply.message}")
        raise BackendError(f"the embedded store could not evaluate the query: {reply.message}")

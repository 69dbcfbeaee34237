"""A killable, capped subprocess that runs untrusted queries on a read-only pyoxigraph store.

pyoxigraph has no query timeout and ``Store.query`` cannot be cancelled, so a runaway
model-written query (a ``COUNT(*)`` over a cross product, docs/faults.md C2) can only be
stopped by ending the process that runs it. :class:`QueryWorker` keeps one persistent
worker (:mod:`saga_kgqa.kg.embedded.worker_main`, started as its own script, never through
``multiprocessing``, so the host's ``__main__`` is never re-imported) and kills it when a
query runs past its deadline; a fresh worker is started lazily for the next query.

The worker's address space is capped (``SAGA_WORKER_MEMORY_MB``, default
:data:`DEFAULT_MEMORY_MB`; ``0`` turns the cap off). A query that kills its worker (out of
memory, or a crash of the engine) is reported as a typed error and is never retried: only a
worker that died while idle is replaced transparently. The worker dies with the host (a
watched pipe), and deletes the temporary store it was given when the host dies first.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from saga_kgqa.errors import (
    BackendError,
    ConfigurationError,
    EndpointUnavailable,
    QueryCrashedEngine,
    QueryMemoryExhausted,
    QuerySyntaxError,
    QueryTimeout,
)
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.core.result import QueryResult, Row, Term
from saga_kgqa.kg.embedded import worker_main as wire
from saga_kgqa.kg.embedded.engine_errors import evaluation_error
from saga_kgqa.kg.embedded.worker_process import KilledFromOutside, WorkerDied, WorkerProcess

#: Address-space cap of a worker, in MiB, when neither the caller nor ``SAGA_WORKER_MEMORY_MB`` sets one.
#: A worker with a small store open already maps about 0.8 GiB (thread stacks, RocksDB).
DEFAULT_MEMORY_MB = 2048
#: Characters kept of one value (a literal, an IRI) before it is cut and the result marked truncated.
DEFAULT_MAX_CELL_CHARS = 1024 * 1024
MEMORY_ENV = "SAGA_WORKER_MEMORY_MB"
_FRAME_SLACK = 16 * 1024 * 1024


def worker_memory_mb(explicit: int | None = None) -> int:
    """Return the worker's memory cap in MiB: ``explicit``, else ``$SAGA_WORKER_MEMORY_MB``, else the default.

    Raises:
        ConfigurationError: The environment variable is not a whole number of MiB >= 0.
    """
    if explicit is not None:
        return explicit
    raw = os.environ.get(MEMORY_ENV, "").strip()
    if not raw:
        return DEFAULT_MEMORY_MB
    if not raw.isdigit():
        raise ConfigurationError(f"{MEMORY_ENV} must be a whole number of MiB (0 for no cap), not {raw!r}")
    return int(raw)


class QueryWorker:
    """A persistent, killable, memory-capped worker process answering queries on a read-only store.

    Thread-safe: one query at a time goes through the pipe; other callers wait for it,
    and that wait counts against their own deadline.
    """

    def __init__(
        self,
        store_dir: Path,
        prefixes: Mapping[str, str],
        *,
        startup_timeout_s: float = 30.0,
        memory_mb: int | None = None,
        max_cell_chars: int = DEFAULT_MAX_CELL_CHARS,
        cleanup_dir: Path | None = None,
    ) -> None:
        """Prepare a worker; the process itself starts with the first query.

        Args:
            store_dir: The on-disk store directory to open read-only.
            prefixes: Default prefixes passed to every query.
            startup_timeout_s: How long a fresh worker may take to start and open the
                store. Not counted against query deadlines, which bound query work.
            memory_mb: Address-space cap of the worker in MiB (``0``: none); see :func:`worker_memory_mb`.
            max_cell_chars: Characters kept of one value before it is cut.
            cleanup_dir: A temporary store the worker deletes if the host dies first.

        Raises:
            ConfigurationError: ``$SAGA_WORKER_MEMORY_MB`` is malformed.
        """
        self._store_dir = str(store_dir)
        self._prefixes = dict(prefixes)
        self._startup_timeout_s = startup_timeout_s
        self._memory_mb = worker_memory_mb(memory_mb)
        self._max_cell = max_cell_chars
        self._cleanup = str(cleanup_dir) if cleanup_dir is not None else None
        self._lock = threading.Lock()
        self._process: WorkerProcess | None = None
        self._ready = False  # the current process answered its configuration with "ready"
        self._closed = False
        self._starts = 0

    @property
    def pid(self) -> int | None:
        """The process id of the current worker; ``None`` before the first query and after a stop."""
        return self._process.pid if self._process is not None else None

    @property
    def starts(self) -> int:
        """How many worker processes were started so far."""
        return self._starts

    @property
    def memory_mb(self) -> int:
        """The worker's address-space cap in MiB (``0``: none)."""
        return self._memory_mb

    def run(self, query: CheckedQuery, limits: ExecutionLimits) -> QueryResult:
        """Run one query in the worker, killing it when the deadline passes.

        Raises:
            QueryTimeout: The query ran past ``limits.deadline_s``; the worker was killed.
            QuerySyntaxError: The store rejected the query text.
            QueryMemoryExhausted: The query used up the worker's memory cap (not retried).
            QueryCrashedEngine: The worker died answering the query (not retried).
            EndpointUnavailable: The worker could not start, or the store is closed.
            BackendError: The store failed to evaluate the query for another reason.
        """
        started = time.perf_counter()
        deadline = started + limits.deadline_s
        if not self._lock.acquire(timeout=max(limits.deadline_s, 0.0)):
            raise QueryTimeout(
                f"the query waited {limits.deadline_s:g} s for the embedded store's query worker and never ran"
            )
        try:
            request = {
                "text": query.text,
                "form": query.form,
                "max_rows": limits.max_rows,
                "max_bytes": limits.max_bytes,
                "max_cell": self._max_cell,
            }
            reply = self._exchange(request, deadline, limits)
        finally:
            self._lock.release()
        return self._result_or_raise(reply, time.perf_counter() - started)

    def close(self) -> None:
        """Stop the worker process at once and refuse further queries.

        The watchdog is killed, not asked to finish: the store is read-only, so there is nothing
        to flush, and waiting for two interpreters to tear down cost a one-query command
        20-60 ms. The server dies with its watchdog (``PR_SET_PDEATHSIG``); a temporary store is
        deleted by :meth:`EmbeddedStore.close` right after.
        """
        with self._lock:
            self._closed = True
            self._stop()

    def _exchange(self, request: dict[str, Any], deadline: float, limits: ExecutionLimits) -> dict[str, Any]:
        timed_out = QueryTimeout(
            f"the query ran past its {limits.deadline_s:g} s deadline and was stopped; narrow it "
            "(anchor an entity, avoid cross products) or lower its LIMIT"
        )
        for attempt in (1, 2):
            starting = time.perf_counter()
            process = self._ensure_started()
            # Starting a worker is our overhead, bounded by startup_timeout_s; the deadline bounds query work.
            deadline += time.perf_counter() - starting
            if deadline <= time.perf_counter():
                raise timed_out  # nothing sent yet: the worker stays usable
            try:
                process.send(request)
            except WorkerDied:
                # It died before it could read the query (killed while idle): not the query's fault.
                self._stop()
                if attempt == 2:
                    raise EndpointUnavailable(
                        "the embedded store's query worker keeps dying before it reads a query"
                    ) from None
                continue
            try:
                return self._await_reply(process, deadline, limits, timed_out)
            except KilledFromOutside:
                if attempt == 2:
                    raise EndpointUnavailable(
                        "the embedded store's query worker was killed from outside twice while answering"
                    ) from None
        raise AssertionError("unreachable: the loop returns or raises")

    def _await_reply(
        self, process: WorkerProcess, deadline: float, limits: ExecutionLimits, timed_out: QueryTimeout
    ) -> dict[str, Any]:
        try:
            reply: dict[str, Any] | None = process.receive(deadline, 2 * limits.max_bytes + _FRAME_SLACK)
        except WorkerDied:
            raise self._death_error(process) from None
        except BaseException:
            # Interrupted mid-wait (KeyboardInterrupt), or an oversized answer: the worker still
            # owes (part of) a reply, which would otherwise be read as the answer to the next query.
            self._stop()
            raise
        if reply is None:
            self._stop()  # the only way to stop a pyoxigraph query
            raise timed_out
        if reply.get("status") == "memory":
            self._stop()  # a worker that hit its cap may be unable to allocate again
        return reply

    def _death_error(self, process: WorkerProcess) -> BackendError:
        """Explain why the worker died under a query; the query is never sent again.

        Raises:
            KilledFromOutside: The watchdog was signalled itself (someone killed the worker
                from outside): the query did not kill it. A server that dies under its query
                makes the watchdog *exit* with 128 + the signal instead.
        """
        code, stderr = process.death()
        self._stop()
        if code is not None and code < 0:
            raise KilledFromOutside
        if wire.MEMORY_ABORT_TEXT in stderr:
            return self._memory_error()
        how = f"signal {code - 128}" if code is not None and code > 128 else f"exit status {code}"
        return QueryCrashedEngine(
            f"the query crashed the embedded store's engine ({how}); it was not retried: "
            "simplify it (fewer nested groups, no cross products)"
        )

    def _memory_error(self) -> QueryMemoryExhausted:
        cap = f"{self._memory_mb} MiB" if self._memory_mb else "the machine's"
        return QueryMemoryExhausted(
            f"the query exhausted the worker's memory ({cap} cap); narrow it "
            "(anchor an entity, avoid cross products and huge strings, sort less) — it was not retried"
        )

    def prestart(self) -> None:
        """Start a worker process and send it its configuration, without waiting for it to be ready.

        A no-op when a worker is already running or the worker is closed; a start that fails
        here is left for the next query to report (and retry).
        """
        # Never wait: a query running in another thread holds the lock, and its worker is up anyway.
        if not self._lock.acquire(blocking=False):
            return
        try:
            if self._closed or (self._process is not None and self._process.alive()):
                return
            with contextlib.suppress(EndpointUnavailable):
                self._spawn()
        finally:
            self._lock.release()

    def _ensure_started(self) -> WorkerProcess:
        if self._closed:
            raise EndpointUnavailable("the embedded store is closed")
        prestarted = self._process is not None and self._process.alive()
        if not prestarted:
            self._spawn()
        process = self._process
        assert process is not None
        if self._ready:
            return process
        why = f"no answer within {self._startup_timeout_s:g} s"
        try:
            reply = process.receive(time.perf_counter() + self._startup_timeout_s, _FRAME_SLACK)
            if reply is not None and reply.get("status") == "ready":
                self._ready = True
                return process
            if reply is not None:
                why = str(reply.get("message", why))
        except WorkerDied:
            why = "it exited while starting"
            if prestarted:
                # Started early by prestart() and killed from outside before it was ready: not
                # this query's fault, so one fresh start (which reports its own failure).
                self._stop()
                return self._ensure_started()
        self._stop()
        raise EndpointUnavailable(f"the embedded store's query worker could not start: {why}")

    def _spawn(self) -> None:
        """Start a process and send its configuration; its "ready" reply is read by :meth:`_ensure_started`."""
        self._stop()
        try:
            process = WorkerProcess(self._cleanup)
        except OSError as exc:
            raise EndpointUnavailable(f"the embedded store's query worker could not start: {exc}") from exc
        self._process = process
        self._ready = False
        self._starts += 1
        config = {
            "store": self._store_dir,
            "prefixes": self._prefixes,
            "memory_bytes": self._memory_mb * 1024 * 1024,
        }
        try:
            process.send(config)
        except WorkerDied:
            self._stop()
            raise EndpointUnavailable(
                "the embedded store's query worker could not start: it exited while starting"
            ) from None

    def _stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.stop()

    def _result_or_raise(self, reply: dict[str, Any], elapsed_s: float) -> QueryResult:
        status = reply.get("status")
        message = str(reply.get("message", ""))
        if status == "ok":
            return _from_wire(reply, elapsed_s)
        if status == "syntax_error":
            raise QuerySyntaxError(f"the store rejected the query: {message}", server_text=message)
        if status == "memory":
            raise self._memory_error()
        if status == "io_error":
            raise EndpointUnavailable(f"the embedded store failed while answering: {message}")
        raise evaluation_error(message)


def _from_wire(reply: dict[str, Any], elapsed_s: float) -> QueryResult:
    if reply["form"] == "ASK":
        return QueryResult(form="ASK", boolean=reply["boolean"], elapsed_s=elapsed_s)
    variables = list(reply["variables"])
    rows: list[Row] = []
    for wire_row in reply["rows"]:
        rows.append({name: Term(*term) for name, term in zip(variables, wire_row, strict=True) if term is not None})
    return QueryResult(
        form=reply["form"],
        variables=variables,
        rows=rows,
        truncated=reply["truncated"],
        elapsed_s=elapsed_s,
        notes=list(reply["notes"]),
    )

"""What a served face keeps after its requests: session states, finished run logs, free heap pages."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest

from saga_kgqa.config.catalog import Catalog
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.serve import memory
from saga_kgqa.serve.memory import WORKER_THREADS_ENV, IdleTrim, WorkerThreads, worker_threads
from saga_kgqa.serve.sessions import SessionStore
from saga_kgqa.serve.web import runs as web_runs
from saga_kgqa.serve.web.runs import RunLog, WebRuns


def test_a_session_state_goes_when_its_session_ends_or_idles() -> None:
    store = SessionStore(idle_s=0.2)
    store.get("a").steps = 3
    store.get("b")
    store.forget("a")  # the transport closed it
    assert store.get("a").steps == 0  # a fresh state: the old one is gone
    assert len(store) == 2
    time.sleep(0.3)
    store.get("c")  # both idle past the limit: dropped as the store is used
    assert len(store) == 1


def test_finished_run_logs_leave_memory_beyond_the_kept_few(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_runs, "KEPT_FINISHED_LOGS", 3)
    runs = WebRuns(Catalog.from_env({}), tmp_path / "checkpoints.sqlite")
    try:
        logs = {}
        for n in range(10):
            log = logs[f"t{n}"] = RunLog()
            runs._live[f"t{n}"] = log
        running = runs._live["t9"]
        for n in range(9):  # t9 is still running
            logs[f"t{n}"].finish()
            runs._retire(f"t{n}", logs[f"t{n}"])
        assert sorted(runs._live) == ["t6", "t7", "t8", "t9"]
        assert runs.live("t9") is running
    finally:
        runs.close()


def test_free_memory_is_given_back_once_the_last_request_in_flight_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    released: list[int] = []
    monkeypatch.setattr(memory, "RELEASE", lambda: released.append(1))
    gate = asyncio.Event()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await gate.wait()

    trimmed = IdleTrim(app, min_interval_s=0.0)

    async def main() -> tuple[int, int]:
        calls = [asyncio.create_task(trimmed({"type": "http"}, None, None)) for _ in range(3)]
        await asyncio.sleep(0.05)
        during = len(released)
        gate.set()
        await asyncio.gather(*calls)
        return during, len(released)

    during, after = asyncio.run(main())
    assert during == 0 and after == 1 and trimmed.trims == 1
    assert memory.release_free_memory() is True


def test_the_worker_thread_pool_is_bounded_and_work_beyond_it_queues() -> None:
    running, most = 0, 0
    lock = threading.Lock()
    free = threading.Event()

    def work() -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        free.wait(5)
        with lock:
            running -= 1

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await anyio.to_thread.run_sync(work)

    bounded = WorkerThreads(app, 3)

    async def main() -> tuple[int, float]:
        calls = [asyncio.create_task(bounded({"type": "http"}, None, None)) for _ in range(10)]
        await asyncio.sleep(0.3)  # every call has asked for a thread by now
        free.set()
        await asyncio.gather(*calls)  # queued, never refused: all ten ran
        return most, anyio.to_thread.current_default_thread_limiter().total_tokens

    assert asyncio.run(main()) == (3, 3)
    with pytest.raises(ValueError):
        WorkerThreads(app, 0)


def test_worker_threads_grow_with_cores_between_8_and_anyio_s_40(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(WORKER_THREADS_ENV, raising=False)
    assert [worker_threads(n) for n in (1, 2, 4, 6, 16)] == [8, 8, 16, 24, 40]


def test_the_operator_sets_the_worker_threads_and_a_bad_value_is_a_typed_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(WORKER_THREADS_ENV, "64")
    assert worker_threads(2) == 64
    for bad in ("0", "-3", "many"):
        monkeypatch.setenv(WORKER_THREADS_ENV, bad)
        with pytest.raises(ConfigurationError, match=WORKER_THREADS_ENV):
            worker_threads(2)

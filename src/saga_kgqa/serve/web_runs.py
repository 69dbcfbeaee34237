"""Runs of the web page: each question runs the LangGraph agent in a worker thread, checkpointed, its events logged.

A live run's events are kept in memory while the page follows them; any run, live or from
an earlier session of the server, can be reopened from the checkpoint store.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from saga_kgqa.app.caller import CallerModelFactory, CallerSourcesFactory, CallerToolboxFactory
from saga_kgqa.app.sources import toolbox_for_source
from saga_kgqa.context import SagaContext
from saga_kgqa.errors import ConfigurationError, SagaError
from saga_kgqa.graph.builder import SagaGraph, build_graph, recursion_limit
from saga_kgqa.graph.persistence import CheckpointStore, CheckpointTarget, RunIdentity, ThreadRecord
from saga_kgqa.graph.tracing import question_run_config
from saga_kgqa.serve.web_events import Event, EventMaker, events_from_state
from saga_kgqa.sources.catalog import Catalog, UnknownName
from saga_kgqa.state.checkpointing import checkpoint_serde
from saga_kgqa.tools.text_safety import graph_text

MAX_QUESTION_CHARS = 2000


@dataclass
class RunLog:
    """The events of one live run, appended by its worker and read by any number of pages."""

    events: list[Event] = field(default_factory=list)
    done: bool = False
    changed: threading.Condition = field(default_factory=threading.Condition)

    def add(self, *events: Event) -> None:
        """Append events and wake the readers."""
        with self.changed:
            self.events.extend(events)
            self.changed.notify_all()

    def finish(self) -> None:
        """Mark the run over."""
        with self.changed:
            self.done = True
            self.changed.notify_all()

    def wait(self, seen: int, timeout_s: float) -> tuple[list[Event], bool]:
        """Events after the first ``seen`` (waiting up to ``timeout_s`` for some) and whether the run is over."""
        with self.changed:
            if len(self.events) <= seen and not self.done:
                self.changed.wait(timeout_s)
            # Every event is added before finish(): once done, nothing comes after these.
            return self.events[seen:], self.done


class WebRuns:
    """Starts, follows and reopens runs against the catalog's sources."""

    def __init__(self, catalog: Catalog, checkpoints: CheckpointTarget) -> None:
        """Serve the catalog's sources and models; checkpoint every run in ``checkpoints``."""
        self.catalog = catalog
        self.store = CheckpointStore(checkpoints, serde=checkpoint_serde())
        self.graph: SagaGraph = build_graph(
            model_factory=CallerModelFactory(catalog),
            toolbox_factory=CallerToolboxFactory(catalog),
            sources_factory=CallerSourcesFactory(catalog),
            checkpointer=self.store.saver,
        )
        self._live: dict[str, RunLog] = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the checkpoint store."""
        self.store.close()

    def start(self, question: str, source: str | None, model: str | None) -> str:
        """Start a run in a worker thread; return its thread id.

        Raises:
            ConfigurationError: An empty or overlong question, or a source or model not in the catalog.
        """
        text = question.strip()
        if not text or len(text) > MAX_QUESTION_CHARS:
            raise ConfigurationError(f"ask a question of 1 to {MAX_QUESTION_CHARS} characters")
        record = self.catalog.source(source)
        self.catalog.model(model)
        thread_id = uuid.uuid4().hex[:12]
        with self._lock:
            self.store.start_thread(thread_id, _identity(record.name, model), text)
            log = self._live[thread_id] = RunLog()
        log.add({"kind": "start", "thread_id": thread_id, "question": text, "source": record.name})
        worker = threading.Thread(target=self._run, args=(thread_id, text, record.name, model, log), daemon=True)
        worker.start()
        return thread_id

    def _run(self, thread_id: str, question: str, source: str, model: str | None, log: RunLog) -> None:
        try:
            context = SagaContext(source=source, model=model or "")
            config = _config(thread_id, question, source, model, context)
            maker = EventMaker(toolbox_for_source(self.catalog.source(source)).view(context).prefixes)
            for chunk in self.graph.stream(
                {"question": question}, config, context=context, stream_mode="updates", durability="sync"
            ):
                for node, delta in chunk.items():
                    events = maker.update(node, delta)
                    if events:
                        log.add(*events)
        except SagaError as exc:
            log.add({"kind": "error", "message": graph_text(f"{type(exc).__name__}: {exc.message}", 500)})
        except Exception as exc:  # a model or library failure ends this run, never the server
            log.add({"kind": "error", "message": graph_text(f"{type(exc).__name__}: {exc}", 500)})
        finally:
            log.add({"kind": "end"})
            log.finish()

    def live(self, thread_id: str) -> RunLog | None:
        """The log of a run this server started, if it did."""
        with self._lock:
            return self._live.get(thread_id)

    def history(self, limit: int = 50) -> list[dict[str, Any]]:
        """Earlier runs, newest first."""
        with self._lock:
            threads = self.store.threads(limit)
        return [_thread_json(t) for t in threads]

    def reopen(self, thread_id: str) -> list[Event]:
        """The events of a checkpointed run (live or earlier).

        Raises:
            UnknownName: No run has that id.
        """
        with self._lock:
            record = self.store.thread(thread_id)
        if record is None:
            raise UnknownName(f"no run {thread_id!r}")
        source = record.identity.graph.removeprefix("source ")
        context = SagaContext(source=source)
        values = dict(self.graph.get_state(_config(thread_id, record.question, source, None, context)).values)
        try:
            prefixes = toolbox_for_source(self.catalog.source(source)).view(context).prefixes
        except (ConfigurationError, SagaError):
            prefixes = {}
        start = {"kind": "start", "thread_id": thread_id, "question": record.question, "source": source}
        return [start, *events_from_state(values, prefixes), {"kind": "end"}]


def _identity(source: str, model: str | None) -> RunIdentity:
    return RunIdentity(graph=f"source {source}", model=f"model {model}" if model else "default model")


def _config(thread_id: str, question: str, source: str, model: str | None, context: SagaContext) -> Any:
    return question_run_config(
        question,
        thread_id=thread_id,
        graph=f"source {source}",
        model=model or "default",
        recursion_limit=recursion_limit(context.max_steps),
    )


def _thread_json(record: ThreadRecord) -> dict[str, Any]:
    return {
        "thread_id": record.thread_id,
        "question": record.question,
        "source": record.identity.graph.removeprefix("source "),
        "created": record.created,
    }

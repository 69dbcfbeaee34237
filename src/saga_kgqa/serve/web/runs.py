"""Runs of the web page: each question runs the LangGraph agent in a worker thread, checkpointed, its events logged.

A live run's events are kept in memory while the page follows them; any run, live or from
an earlier session of the server, can be reopened from the checkpoint store. Live runs are
capped (:class:`~saga_kgqa.serve.perimeter.RunSlots`, one worker thread each); a run can be
cancelled (it stops at the next step boundary, its checkpoint kept) and an unfinished run resumed.
"""

from __future__ import annotations

import logging
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from langgraph.types import Command

from saga_kgqa.app.served import ServedAgent
from saga_kgqa.config.catalog import Catalog, UnknownName
from saga_kgqa.config.context import SagaContext
from saga_kgqa.config.model_settings import ModelSettings
from saga_kgqa.errors import ConfigurationError, SagaError
from saga_kgqa.graph.builder import question_run_config, recursion_limit
from saga_kgqa.runs.answer_view import answer_views, views_json
from saga_kgqa.runs.clarification import pending_clarification, resume_with
from saga_kgqa.runs.final_state import run_finished
from saga_kgqa.runs.persistence import CheckpointStore, CheckpointTarget, RunIdentity, ThreadRecord
from saga_kgqa.serve.perimeter import RunSlots
from saga_kgqa.serve.web.events import Event, EventMaker, Labeller, clarify_event, events_from_state, progress_event
from saga_kgqa.serve.web.failures import NO_MODEL, explain
from saga_kgqa.state.graph_state import InputState
from saga_kgqa.tools.toolbox import ToolView

MAX_QUESTION_CHARS = 2000
#: Finished runs whose event logs stay in memory for pages still following them; older ones are
#: replayed from the checkpoint store (a server answering thousands of runs kept every log).
KEPT_FINISHED_LOGS = 64
LOG = logging.getLogger("saga_kgqa.serve.web.app")


@dataclass
class RunLog:
    """The events of one live run, appended by its worker and read by any number of pages."""

    events: list[Event] = field(default_factory=list)
    done: bool = False
    cancelled: threading.Event = field(default_factory=threading.Event)
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

    def __init__(self, catalog: Catalog, checkpoints: CheckpointTarget, slots: RunSlots | None = None) -> None:
        """Serve the catalog's sources and models; checkpoint every run in ``checkpoints``; cap live runs."""
        self.catalog = catalog
        self.slots = slots or RunSlots.from_env()
        self.agent = ServedAgent(catalog, checkpoints, sources="catalog")
        assert self.agent.store is not None  # given a checkpoint target, the agent has a store
        self.store: CheckpointStore = self.agent.store
        self._live: dict[str, RunLog] = {}
        self._finished: dict[str, None] = {}  # the finished ones of _live, oldest first
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the checkpoint store."""
        self.agent.close()

    @property
    def model_ready(self) -> bool:
        """True when a model is configured: a catalog ``[models]`` entry, or the environment's."""
        settings = ModelSettings.resolve()
        return bool(self.catalog.models or settings.factory or settings.model)

    def start(self, question: str, source: str | None, model: str | None, client: str = "local") -> str:
        """Start a run in a worker thread; return its thread id.

        Raises:
            ConfigurationError: No model, an empty or overlong question, or a source or model not in the catalog.
            Busy: Every run slot (of the page, or of this client) is taken.
        """
        if not self.model_ready:
            raise ConfigurationError(NO_MODEL)
        text = question.strip()
        if not text or len(text) > MAX_QUESTION_CHARS:
            raise ConfigurationError(f"ask a question of 1 to {MAX_QUESTION_CHARS} characters")
        record = self.catalog.source(source)
        self.catalog.model(model)
        thread_id = uuid.uuid4().hex[:12]
        self.slots.take(client)
        try:
            with self._lock:
                self.store.start_thread(thread_id, _identity(record.name, model), text)
                log = self._live[thread_id] = RunLog()
        except BaseException:
            self.slots.give_back(client)
            raise
        log.add({"kind": "start", "thread_id": thread_id, "question": text, "source": record.name})
        self._spawn(thread_id, text, record.name, model, log, client, resumed=False)
        return thread_id

    def resume(self, thread_id: str, client: str = "local", choice: str | None = None) -> None:
        """Continue an unfinished run from its last checkpoint (after a cancel, a failure or a restart).

        ``choice`` answers the question the run waits on (``needs_clarification``): a candidate's id.

        Raises:
            ConfigurationError: No model, or the run is unknown, still running or already finished, or a
                choice for a run that waits on none.
            Busy: Every run slot is taken.
        """
        if not self.model_ready:
            raise ConfigurationError(NO_MODEL)
        with self._lock:
            running = self._live.get(thread_id)
            record = self.store.thread(thread_id)
        if running is not None and not running.done:
            raise ConfigurationError("this run is still running")
        if record is None:
            raise UnknownName(f"no run {thread_id!r}")
        source = record.identity.graph.removeprefix("source ")
        context = SagaContext(source=source)
        snapshot = self.agent.state(_config(thread_id, record.question, source, None, context))
        if run_finished(snapshot):
            raise ConfigurationError("this run has finished; ask the question again to start a new run")
        if choice is not None and pending_clarification(snapshot) is None:
            raise ConfigurationError("this run waits on no choice")
        # The page follows the resumed run from the start: the checkpoint's steps so far, then the new ones.
        before = [e for e in self.reopen(thread_id) if e["kind"] not in ("interrupted", "end")]
        self.slots.take(client)
        log = RunLog(events=[*before, {"kind": "resumed", "thread_id": thread_id}])
        with self._lock:
            self._live[thread_id] = log
            self._finished.pop(thread_id, None)
        self._spawn(thread_id, record.question, source, None, log, client, resumed=True, choice=choice)

    def cancel(self, thread_id: str) -> bool:
        """Ask a live run to stop at its next step boundary (its checkpoint stays resumable); False if not running."""
        log = self.live(thread_id)
        if log is None or log.done:
            return False
        log.cancelled.set()
        return True

    def _spawn(
        self,
        thread_id: str,
        question: str,
        source: str,
        model: str | None,
        log: RunLog,
        client: str,
        *,
        resumed: bool,
        choice: str | None = None,
    ) -> None:
        def work() -> None:
            try:
                self._run(thread_id, question, source, model, log, resumed=resumed, choice=choice)
            finally:
                self.slots.give_back(client)

        try:
            threading.Thread(target=work, name=f"saga-web-{thread_id}", daemon=True).start()
        except BaseException:
            self.slots.give_back(client)
            raise

    def _run(
        self,
        thread_id: str,
        question: str,
        source: str,
        model: str | None,
        log: RunLog,
        *,
        resumed: bool,
        choice: str | None = None,
    ) -> None:
        context = SagaContext(source=source, model=model or "")
        try:
            config = _config(thread_id, question, source, model, context)
            steps = int(self.agent.state(config).values.get("steps", 0)) if resumed else 0
            run = self.agent.run(context, config, thread_id=thread_id, question=question)
            view = run.toolbox.view(context)
            maker = EventMaker(view.prefixes, _labeller(view, context.language))
            inputs: InputState | Command[Any] | None = None if resumed else {"question": question}
            waiting = run.pending() if choice is not None else None
            if waiting is not None and choice is not None:
                inputs = resume_with(waiting, choice)
            page = _PageObserver(log, maker, steps, context.max_steps)
            if run.stream(inputs, [page], stop=log.cancelled.is_set):
                # The stream is closed: the graph stops here, its last checkpoint kept.
                log.add({"kind": "cancelled", "thread_id": thread_id})
                return
            asked = run.pending()
            if asked is not None:  # the run asks back: the page shows the candidates to choose from
                log.add(clarify_event(thread_id, asked))
        except Exception as exc:  # a model or library failure ends this run, never the server
            LOG.warning("web run %s failed: %s: %s", thread_id, type(exc).__name__, exc)
            log.add({"kind": "error", "message": explain(exc), "resumable": True})
        finally:
            log.add({"kind": "end"})
            log.finish()
            self._retire(thread_id, log)

    def _retire(self, thread_id: str, log: RunLog) -> None:
        """Note a finished run; beyond :data:`KEPT_FINISHED_LOGS` the oldest finished logs leave memory."""
        with self._lock:
            if self._live.get(thread_id) is not log:
                return  # resumed meanwhile: the new run's log is live
            self._finished.pop(thread_id, None)
            self._finished[thread_id] = None
            while len(self._finished) > KEPT_FINISHED_LOGS:
                oldest = next(iter(self._finished))
                del self._finished[oldest]
                if self._live.get(oldest) is not None and self._live[oldest].done:
                    del self._live[oldest]

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
        snapshot = self.agent.state(_config(thread_id, record.question, source, None, context))
        values = dict(snapshot.values)
        prefixes: dict[str, str] = {}
        labeller: Labeller | None = None
        try:
            view = self.agent.toolbox(source).view(context)
            prefixes, labeller = view.prefixes, _labeller(view, context.language)
        except (ConfigurationError, SagaError):
            pass
        start = {"kind": "start", "thread_id": thread_id, "question": record.question, "source": source}
        events = [start, *events_from_state(values, prefixes, labeller)]
        asked = pending_clarification(snapshot)
        if asked is not None:  # waiting on the caller's choice: the page shows the candidates again
            events.append(clarify_event(thread_id, asked))
        elif "status" not in values:  # cancelled, failed or cut off by a restart: the page offers Resume
            events.append({"kind": "interrupted", "thread_id": thread_id, "steps": int(values.get("steps", 0))})
        return [*events, {"kind": "end"}]


def _labeller(view: ToolView, language: str) -> Labeller:
    return lambda answer: views_json(answer_views(view, answer, language))


def _identity(source: str, model: str | None) -> RunIdentity:
    return RunIdentity(graph=f"source {source}", model=f"model {model}" if model else "default model")


@dataclass
class _PageObserver:
    """Turns each node's delta into the page's events and its progress line."""

    log: RunLog
    maker: EventMaker
    steps: int
    max_steps: int

    def update(self, node: str, delta: Any) -> None:
        """Add the events of one node's delta (a chosen action counts a step)."""
        if node == "controller" and isinstance(delta, dict) and delta.get("pending_action") is not None:
            self.steps += 1
        self.log.add(*self.maker.update(node, delta), progress_event(node, delta, self.steps, self.max_steps))


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

"""One ``kg_ask`` run: the agent graph streamed step by step, checkpointed, reporting steps and stoppable.

The graph runs in a worker thread. Between its steps the run reports (step count, last
node) to a callback, and checks a stop event and its time budget; stopped or out of time,
the stream is closed, so the graph stops at the next step boundary (a model call under way
is not cut). Every step is checkpointed (``durability="sync"``) under the run's id, so a
cancelled or timed-out run resumes from where it stopped when asked with that id again.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from langgraph.types import Command

from saga_kgqa.app.served import ServedAgent
from saga_kgqa.config.catalog import Catalog
from saga_kgqa.config.context import SagaContext
from saga_kgqa.errors import ConfigurationError, SagaError
from saga_kgqa.graph.builder import run_config
from saga_kgqa.graph.clarify import Clarification
from saga_kgqa.graph.finalize import choose_final_query, earlier_result, without_exploratory_limit
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.runs.clarification import clarification_values, pending_clarification
from saga_kgqa.runs.final_state import answer_columns, steps_taken
from saga_kgqa.runs.gold_runner import GOLD_LIMITS
from saga_kgqa.runs.persistence import CheckpointStore, CheckpointTarget, RunIdentity
from saga_kgqa.state import QueryAttempt
from saga_kgqa.state.evidence import Evidence
from saga_kgqa.state.graph_state import InputState
from saga_kgqa.state.outcome import RunOutcome, outcome_of, stopped_outcome

#: The one caller of a stdio server (see :func:`saga_kgqa.serve.mcp.limits.caller_key`).
STDIO_OWNER = "stdio"
#: Runs whose starting caller is remembered.
MAX_OWNED_RUNS = 10_000

#: Called after each graph step with the run's controller steps so far and the node that ran.
OnStep = Callable[[int, str], None]


@dataclass
class AskOutcome:
    """What a run (or its resumed part) ended with.

    Attributes:
        run_id: The checkpoint thread; pass it back to resume.
        outcome: How the run ended (the run's own outcome, or ``timed_out``/``failed`` when stopped early).
        sparql: The final query, or the last one executed so far when stopped early.
        answers: Its SPARQL JSON result (run again behind the guard) when its rows are the answer, else ``None``.
        steps: Controller steps the whole run took (resumed parts included), read from its state as
            ``saga ask`` reads them (:func:`~saga_kgqa.runs.final_state.steps_taken`).
        variables: The columns of the run's answer, from its state, whatever the row count.
        error: Why the final query could not run, if it could not.
        evidence: The run's evidence (:class:`~saga_kgqa.state.evidence.Evidence` as JSON), when it finished.
        clarification: The question the run waits on (``needs_clarification``), if any.
    """

    run_id: str
    outcome: RunOutcome
    sparql: str | None = None
    answers: dict[str, Any] | None = None
    steps: int = 0
    variables: list[str] = field(default_factory=list)
    error: str | None = None
    evidence: dict[str, Any] | None = None
    clarification: Clarification | None = None


class AskRuns:
    """The agent graph with a checkpointer, over the operator's catalog."""

    def __init__(self, catalog: Catalog, checkpoints: CheckpointTarget) -> None:
        """Checkpoint every run in ``checkpoints`` (a SQLite file or a PostgreSQL URL).

        Raises:
            ConfigurationError: The checkpoint database cannot be opened.
        """
        # The named sources are those of the configured catalog file, as the public build_graph's default.
        self.agent = ServedAgent(catalog, checkpoints, sources="environment")
        assert self.agent.store is not None  # given a checkpoint target, the agent has a store
        self.store: CheckpointStore = self.agent.store
        self._lock = threading.Lock()
        # run id -> the caller that started it (newest last); beyond the bound the oldest become unknown runs.
        self._owners: OrderedDict[str, str] = OrderedDict()

    def close(self) -> None:
        """Close the checkpoint store."""
        self.agent.close()

    def start(
        self, run_id: str | None, question: str, source: str, model: str | None, owner: str = STDIO_OWNER
    ) -> tuple[str, bool]:
        """The run's id and whether it resumes: a new id for a new run, or the given one if ``owner`` started it.

        A run belongs to the caller that started it (:func:`~saga_kgqa.serve.mcp.limits.caller_key`:
        its HTTP session, or its connection on the stateless protocol): asked from anywhere else,
        its id is an unknown run, worded exactly as one that never existed. The one client of a
        stdio server may resume any run of its checkpoint database (the operator's own, as
        ``saga ask --resume`` may).

        Raises:
            ConfigurationError: ``run_id`` names no run of ``owner``'s, or a run on another source.
        """
        identity = RunIdentity(graph=f"source {source}", model=f"model {model}" if model else "default model")
        with self._lock:
            if run_id is None:
                new = uuid.uuid4().hex[:12]
                self.store.start_thread(new, identity, question)
                self._owners[new] = owner
                while len(self._owners) > MAX_OWNED_RUNS:
                    self._owners.popitem(last=False)
                return new, False
            mine = owner == STDIO_OWNER or self._owners.get(run_id) == owner
            record = self.store.thread(run_id) if mine else None
        if record is None:
            raise ConfigurationError(f"unknown run {run_id!r}: omit run_id to start a new one")
        if record.identity.graph != identity.graph:
            raise ConfigurationError(f"run {run_id!r} asked {record.identity.graph}, not source {source!r}")
        return run_id, True

    def run(
        self,
        run_id: str,
        question: str | None,
        context: SagaContext,
        kg: KnowledgeGraph,
        *,
        on_step: OnStep,
        stop: threading.Event,
        max_seconds: float,
        resume: dict[str, str] | None = None,
    ) -> AskOutcome:
        """Run (``question`` given) or resume (``None``) the thread ``run_id`` until it ends, stops or times out.

        The outcome is the run's own (decided in finalize), or ``timed_out``/``failed`` when stopped early,
        or ``needs_clarification`` while the run waits for the caller to choose (``resume``: the choice).
        """
        config = run_config(context, thread_id=run_id)
        started = time.monotonic()
        progress = _StepCounter(steps_taken(self.agent.state(config).values), on_step)
        stopped: str | None = None

        def should_stop() -> bool:
            nonlocal stopped
            if stop.is_set():
                stopped = "cancelled"
            elif time.monotonic() - started > max_seconds:
                stopped = "timeout"
            return stopped is not None

        inputs: InputState | Command[Any] | None = None if question is None else {"question": question}
        if resume is not None:
            inputs = Command(resume=resume)
        run = self.agent.run(context, config, thread_id=run_id, question=question)
        run.stream(inputs, [progress], stop=should_stop)
        snapshot = run.state()
        asked = pending_clarification(snapshot)
        if asked is not None and stopped is None:
            waiting = AskOutcome(run_id, clarification_values({}, asked)["outcome"], None)
            waiting.steps = steps_taken(snapshot.values)
            waiting.clarification = asked
            return waiting
        return self._outcome(run_id, dict(snapshot.values), stopped, kg)

    def pending(self, context: SagaContext, run_id: str) -> Clarification | None:
        """The question the run ``run_id`` waits on, if it waits on one."""
        return pending_clarification(self.agent.state(run_config(context, thread_id=run_id)))

    def _outcome(self, run_id: str, values: dict[str, Any], stopped: str | None, kg: KnowledgeGraph) -> AskOutcome:
        if values.get("status") and stopped is None:
            sparql = values.get("final_sparql")
            outcome = AskOutcome(run_id, outcome_of(values), sparql if isinstance(sparql, str) else None)
            evidence = values.get("evidence")
            if isinstance(evidence, Evidence):
                outcome.evidence = evidence.model_dump(mode="json", exclude_none=True)
        else:
            # Stopped between steps: the last query executed so far is shown, never an earlier one as the answer.
            attempts = [a for a in values.get("attempts") or [] if isinstance(a, QueryAttempt)]
            chosen = choose_final_query(attempts)
            ran = chosen is not None and chosen.status not in ("rejected", "blocked")
            sparql = without_exploratory_limit(chosen.sparql) if chosen is not None and ran else None
            why: Literal["run_deadline", "cancelled"] = "run_deadline" if stopped == "timeout" else "cancelled"
            outcome = AskOutcome(run_id, stopped_outcome(why, earlier_result(attempts, chosen)), sparql)
        # The run's own counts, as every face reads them from its state (never counted here).
        outcome.steps = steps_taken(values)
        outcome.variables = answer_columns(values)
        if outcome.sparql is not None and outcome.outcome.is_answer:
            try:
                outcome.answers = kg.query(outcome.sparql, GOLD_LIMITS).to_sparql_json()
            except SagaError as exc:
                # The run's outcome stands; the rows could not be read again for this reply.
                outcome = replace(
                    outcome, error=f"the rows could not be read again: {type(exc).__name__}: {exc.message}"
                )
        return outcome


@dataclass
class _StepCounter:
    """Counts the controller steps of a run (as its state does) and reports each node to the progress callback."""

    steps: int
    on_step: OnStep

    def update(self, node: str, delta: Any) -> None:
        """Count a chosen action as a step (the controller's count), then report the node."""
        self.steps += node == "controller" and isinstance(delta, dict) and delta.get("pending_action") is not None
        self.on_step(self.steps, node)

"""Answer benchmark questions with the SAGA agent graph, for :func:`saga_kgqa.runs.batch.run_benchmark`.

The graph's own answer keeps literals as lexical strings; scoring needs typed terms, so
the final query is run once more through a :class:`~saga_kgqa.kg.knowledge_graph.KnowledgeGraph`
(behind the guard, like every query) and its SPARQL JSON result is the prediction. The
run is streamed node by node, which gives the actions per tool, the LLM calls and tokens,
and the executed and empty queries.

Budgets: the step budget is the graph's own (``SagaContext.max_steps``). Seconds and
tokens are checked here between graph steps: once a budget is spent the stream is closed,
so the graph stops at the next step boundary (an LLM call under way is not cut), and the
query the agent's finalize step would have chosen is the answer, with status ``timeout``
or ``budget_exhausted``.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.config.context import SagaContext
from saga_kgqa.errors import SagaError
from saga_kgqa.graph.builder import SagaGraph, run_config
from saga_kgqa.graph.finalize import choose_final_query, without_exploratory_limit
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.runs.gold_runner import GOLD_LIMITS, GoldRunner
from saga_kgqa.runs.predictions import PredictionRecord, PredictionStatus, TraceCounters
from saga_kgqa.runs.stream import stream_run
from saga_kgqa.state import QueryAttempt, TokenUsage
from saga_kgqa.state.outcome import RunOutcome, RunStatus, outcome_of

_LANGUAGE = re.compile(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*")

#: Graph nodes that are agent actions (the controller, answer type and finalize are not).
TOOL_NODES = frozenset({"search", "lookup", "patterns", "examples", "execute", "prune_fallback", "refuse_action"})
#: The prediction status (scoring, retries) of each run outcome; a spent step budget keeps its own.
_STATUS: dict[RunStatus, PredictionStatus] = {
    "answered": PredictionStatus.ANSWERED,
    "partial": PredictionStatus.ANSWERED,
    "empty": PredictionStatus.ANSWERED,
    "failed": PredictionStatus.FAILED,
    "timed_out": PredictionStatus.TIMEOUT,
    "refused": PredictionStatus.FAILED,
    "needs_clarification": PredictionStatus.NO_QUERY,
}


def prediction_status(outcome: RunOutcome) -> PredictionStatus:
    """The prediction status of a run's outcome."""
    if outcome.reason == "step_budget":
        return PredictionStatus.BUDGET_EXHAUSTED
    if outcome.reason == "no_query":
        return PredictionStatus.NO_QUERY
    return _STATUS[outcome.status]


#: Told (question id, attempt) as each query of a run runs.
AttemptWatch = Callable[[str, QueryAttempt], None]


@dataclass
class _Trace:
    """What the streamed updates of one run add up to."""

    actions: Counter[str] = field(default_factory=Counter)
    attempts: list[QueryAttempt] = field(default_factory=list)
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    final: dict[str, Any] | None = None
    asked: bool = False

    def add(self, node: str, delta: Any) -> None:
        if node in TOOL_NODES:
            self.actions[node] += 1
        if node == "__interrupt__":  # the run waits for its caller to choose (an ambiguous name)
            self.asked = True
        if not isinstance(delta, dict):
            return
        self.attempts.extend(a for a in delta.get("attempts") or [] if isinstance(a, QueryAttempt))
        calls = delta.get("llm_calls")
        self.llm_calls += calls if isinstance(calls, int) else 0
        usage = delta.get("token_usage")
        if isinstance(usage, TokenUsage):
            self.input_tokens += usage.input_tokens
            self.output_tokens += usage.output_tokens
        if node == "finalize":
            self.final = delta


@dataclass
class _Watching:
    """Adds each update to the run's trace and shows the watcher every new query attempt."""

    trace: _Trace
    question_id: str
    watch: AttemptWatch | None

    def update(self, node: str, delta: Any) -> None:
        """Add one node's delta; a watcher sees the attempts it brought."""
        seen = len(self.trace.attempts)
        self.trace.add(node, delta)
        if self.watch is not None:
            for attempt in self.trace.attempts[seen:]:
                self.watch(self.question_id, attempt)


class AgentAnswerer:
    """Runs the agent on one question and records its final query, answers and trace counters."""

    def __init__(
        self,
        graph: SagaGraph,
        context: SagaContext,
        executor: GoldRunner,
        *,
        limits: ExecutionLimits = GOLD_LIMITS,
        max_seconds: float | None = None,
        max_tokens: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        watch: AttemptWatch | None = None,
    ) -> None:
        """Answer with ``graph`` under ``context``; run final queries on ``executor``.

        Args:
            graph: The compiled agent graph (:func:`saga_kgqa.build_graph`).
            context: The run's switches and step budget.
            executor: Where the final query is run for typed answers (the graph the agent used).
            limits: Limits of that final run.
            max_seconds: Wall-clock budget per question, checked between graph steps.
            max_tokens: Token budget (prompt + completion) per question, checked between graph steps.
            clock: Time source for the seconds budget (tests pass a fake one).
            watch: Told (question id, attempt) as each query runs, so a server can answer the best
                query so far if the run is cut off.
        """
        self._graph = graph
        self._context = context
        self._executor = executor
        self._limits = limits
        self._max_seconds = max_seconds
        self._max_tokens = max_tokens
        self._clock = clock
        self._watch = watch

    def __call__(self, question: BenchmarkQuestion, /) -> PredictionRecord:
        """Answer one question; errors of the final run become a ``failed`` record."""
        started = self._clock()
        trace = _Trace()
        stopped: PredictionStatus | None = None
        context = self._context
        if question.language and question.language != context.language and _LANGUAGE.fullmatch(question.language):
            # Names are searched and labels shown in the question's language (English stays the fallback).
            context = replace(context, language=question.language)
        observer = _Watching(trace, question.id, self._watch)

        def spent() -> bool:
            nonlocal stopped
            stopped = self._spent(started, trace)
            return stopped is not None

        stream_run(self._graph, {"question": question.question}, run_config(context), context, [observer], stop=spent)
        outcome: RunStatus
        if trace.final is not None:
            run_outcome = outcome_of(trace.final)
            status, outcome = prediction_status(run_outcome), run_outcome.status
            # Only a query that ran to rows (or none) is run again for scoring: a final query that failed,
            # timed out or was refused has no answer to score, and a second run must not change the outcome.
            sparql = trace.final.get("final_sparql")
            rerun = outcome in ("answered", "partial", "empty")
        elif trace.asked and stopped is None:
            # The run asks back and nobody here can answer: no query is the answer.
            sparql, rerun, outcome, status = None, False, "needs_clarification", PredictionStatus.NO_QUERY
        else:
            # Stopped between steps: the query finalize would have chosen, under the run's own policy.
            chosen = choose_final_query(trace.attempts, context.final_query)
            sparql = None if chosen is None else without_exploratory_limit(chosen.sparql)
            status = stopped or PredictionStatus.FAILED
            outcome = "timed_out" if status is PredictionStatus.TIMEOUT else "failed"
            rerun = True  # a benchmark scores the query a cut-off run had reached (its outcome stays)
        answers: dict[str, Any] | None = None
        error: str | None = None
        if isinstance(sparql, str) and rerun:
            try:
                result = self._executor.query(sparql, self._limits)
                answers = result.to_sparql_json()
            except SagaError as exc:
                # The run's outcome stands; the prediction has no answers to score.
                status, error = PredictionStatus.FAILED, f"{type(exc).__name__}: {exc.message}"
            else:
                if status is PredictionStatus.BUDGET_EXHAUSTED and trace.final is None:
                    # A spent token budget: the rows so far are a partial answer, no rows an empty one.
                    outcome = "partial" if result.rows or result.boolean is not None else "empty"
        return PredictionRecord(
            question_id=question.id,
            predicted_sparql=sparql if isinstance(sparql, str) else None,
            predicted_answers=answers,
            status=status,
            outcome=outcome,
            error=error,
            trace=TraceCounters(
                actions=dict(trace.actions),
                llm_calls=trace.llm_calls,
                prompt_tokens=trace.input_tokens,
                completion_tokens=trace.output_tokens,
                latency_s=max(0.0, self._clock() - started),
                queries_executed=len(trace.attempts),
                queries_empty=sum(a.status == "empty" for a in trace.attempts),
            ),
        )

    def _spent(self, started: float, trace: _Trace) -> PredictionStatus | None:
        if trace.final is not None:
            return None
        if self._max_seconds is not None and self._clock() - started > self._max_seconds:
            return PredictionStatus.TIMEOUT
        if self._max_tokens is not None and trace.input_tokens + trace.output_tokens > self._max_tokens:
            return PredictionStatus.BUDGET_EXHAUSTED
        return None

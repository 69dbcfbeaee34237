"""Answer benchmark questions with the SAGA agent graph, for :func:`saga_kgqa.eval.runner.run_benchmark`.

The graph's own answer keeps literals as lexical strings; scoring needs typed terms, so
the final query is run once more through a :class:`~saga_kgqa.kg.knowledge_graph.KnowledgeGraph`
(behind the guard, like every query) and its SPARQL JSON result is the prediction. The
run is streamed node by node, which gives the actions per tool; the graph's trace
summary gives LLM calls and tokens, its query attempts the executed and empty queries.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from saga_kgqa.context import SagaContext
from saga_kgqa.errors import SagaError
from saga_kgqa.eval.gold import GOLD_LIMITS, GoldRunner
from saga_kgqa.eval.predictions import PredictionRecord, PredictionStatus, TraceCounters
from saga_kgqa.eval.questions import BenchmarkQuestion
from saga_kgqa.graph.builder import SagaGraph, run_config
from saga_kgqa.kg.backend import ExecutionLimits
from saga_kgqa.state import QueryAttempt, TraceSummary

#: Graph nodes that are agent actions (the controller, answer type and finalize are not).
TOOL_NODES = frozenset({"search", "lookup", "examples", "execute", "prune_fallback", "refuse_action"})
_STATUS = {
    "answered": PredictionStatus.ANSWERED,
    "budget_exhausted": PredictionStatus.BUDGET_EXHAUSTED,
    "gave_up": PredictionStatus.NO_QUERY,
    "failed": PredictionStatus.FAILED,
}


class AgentAnswerer:
    """Runs the agent on one question and records its final query, answers and trace counters."""

    def __init__(
        self,
        graph: SagaGraph,
        context: SagaContext,
        executor: GoldRunner,
        *,
        limits: ExecutionLimits = GOLD_LIMITS,
    ) -> None:
        """Answer with ``graph`` under ``context``; run final queries on ``executor``.

        Args:
            graph: The compiled agent graph (:func:`saga_kgqa.graph.build_graph`).
            context: The run's switches and budgets.
            executor: Where the final query is run for typed answers (the graph the agent used).
            limits: Limits of that final run.
        """
        self._graph = graph
        self._context = context
        self._executor = executor
        self._limits = limits

    def __call__(self, question: BenchmarkQuestion, /) -> PredictionRecord:
        """Answer one question; errors of the final run become a ``failed`` record."""
        started = time.perf_counter()
        actions: Counter[str] = Counter()
        attempts: list[QueryAttempt] = []
        final: dict[str, Any] = {}
        updates = self._graph.stream(
            {"question": question.question}, run_config(self._context), context=self._context, stream_mode="updates"
        )
        for update in updates:
            for node, delta in update.items():
                if node in TOOL_NODES:
                    actions[node] += 1
                if isinstance(delta, dict):
                    attempts.extend(a for a in delta.get("attempts") or [] if isinstance(a, QueryAttempt))
                    if node == "finalize":
                        final = delta
        summary = final.get("summary")
        summary = summary if isinstance(summary, TraceSummary) else TraceSummary()
        sparql = final.get("final_sparql")
        status = _STATUS.get(str(final.get("status")), PredictionStatus.FAILED)
        answers: dict[str, Any] | None = None
        error: str | None = None
        if isinstance(sparql, str):
            try:
                answers = self._executor.query(sparql, self._limits).to_sparql_json()
            except SagaError as exc:
                status, error = PredictionStatus.FAILED, f"{type(exc).__name__}: {exc.message}"
        return PredictionRecord(
            question_id=question.id,
            predicted_sparql=sparql if isinstance(sparql, str) else None,
            predicted_answers=answers,
            status=status,
            error=error,
            trace=TraceCounters(
                actions=dict(actions),
                llm_calls=summary.llm_calls,
                prompt_tokens=summary.token_usage.input_tokens,
                completion_tokens=summary.token_usage.output_tokens,
                latency_s=time.perf_counter() - started,
                queries_executed=len(attempts),
                queries_empty=sum(a.status == "empty" for a in attempts),
            ),
        )

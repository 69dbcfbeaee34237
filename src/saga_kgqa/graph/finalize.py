"""The ``finalize`` node: pick the final query, run it without its exploratory LIMIT, and decide the outcome.

The final query is the last one the controller executed, as SAGA's ``stop()`` says ("marks the
last executed SPARQL query as the final answer", Appendix F.2): an earlier attempt that returned
rows is never the answer when a later one came back empty, failed or was refused; it is kept in
the outcome as "an earlier result, not the answer" (:attr:`~saga_kgqa.state.outcome.RunOutcome.earlier`).
A benchmark may ask for the last attempt that returned rows instead (``final_query="last_answering"``,
`saga eval run --final-query`), off by default and recorded in the run's configuration.

The final query is run once more without a top-level LIMIT the model added while exploring (a
LIMIT under ORDER BY is part of the question, "the oldest", and stays), under the answer row cap,
and its rows become the answer. The run's outcome (:mod:`saga_kgqa.state.outcome`) is decided here,
once, from why the loop ended and what that run gave; every face reports it unchanged. Every
attempt stays in the output, whatever the outcome.

With ``answer_shape`` on (issue 25), the query returned and run is the *scored* one: a
column that only labels another projected column is dropped
(:func:`saga_kgqa.answer_shape.shape_query`; ORDER BY, LIMIT, aggregates and ASK are never
touched), because benchmarks score every value of every column. The model's own query stays
in the summary (``unshaped_sparql``) and the readable-answer view still labels the answer's
IRIs with its own display query. A shaped query that fails to run is given up for the model's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.runtime import Runtime

from saga_kgqa.answer_shape import ShapedQuery, shape_query
from saga_kgqa.config.context import FinalQueryPolicy, SagaContext, resolve_context
from saga_kgqa.graph.dependencies import GraphDependencies
from saga_kgqa.graph.source_tools import attempt_tools
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.kg.guard.sparql_lexer import tokenize
from saga_kgqa.state import Action, Answer, QueryAttempt, TraceSummary
from saga_kgqa.state.graph_state import SagaState
from saga_kgqa.state.outcome import EarlierResult, FinalRun, derive_outcome
from saga_kgqa.text_safety import graph_text, outside_value
from saga_kgqa.tools.execute.tool import ExecuteOutcome, ExecuteSettings


def choose_final_query(attempts: list[QueryAttempt], policy: FinalQueryPolicy = "last_executed") -> QueryAttempt | None:
    """The attempt the run answers with: the last one executed, whatever it gave; ``None`` when there is none.

    ``policy="last_answering"`` (benchmark comparisons only) takes the last attempt that returned
    rows or an ASK answer instead, else the last one.
    """
    if not attempts:
        return None
    if policy == "last_answering":
        for attempt in reversed(attempts):
            if attempt.status == "ok":
                return attempt
    return attempts[-1]


def earlier_result(attempts: list[QueryAttempt], chosen: QueryAttempt | None) -> EarlierResult | None:
    """The last attempt before ``chosen`` that returned rows: shown as "an earlier result, not the answer"."""
    for attempt in reversed(attempts):
        if attempt is not chosen and attempt.status == "ok" and (chosen is None or attempt.step <= chosen.step):
            return EarlierResult(step=attempt.step, sparql=attempt.sparql, row_count=attempt.row_count)
    return None


def without_exploratory_limit(sparql: str) -> str:
    """Remove a top-level ``LIMIT n`` unless the query orders its results (then the LIMIT is meant)."""
    tokens = tokenize(sparql)
    top = [t for t in tokens if t.brace_depth == 0 and t.paren_depth == 0]
    if any(t.is_word("ORDER") for t in top):
        return sparql
    for index, token in enumerate(top):
        if token.is_word("LIMIT") and index + 1 < len(top) and top[index + 1].kind == "number":
            end = top[index + 1].end
            return (sparql[: token.start].rstrip() + " " + sparql[end:].lstrip()).strip()
    return sparql


class FinalizeNode:
    """The ``finalize`` node, bound to the graph's dependencies."""

    def __init__(self, dependencies: GraphDependencies) -> None:
        """Keep the factories."""
        self.dependencies = dependencies

    def __call__(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run the final query, decide the outcome, and write the output fields."""
        context = resolve_context(runtime.context)
        stop_reason = state.get("stop_reason") or "max_steps"
        attempts = list(state.get("attempts", []))
        chosen = choose_final_query(attempts, context.final_query)
        delta: dict[str, Any] = {"stop_reason": stop_reason, "pending_action": None}
        final_sparql: str | None = None
        answer: Answer | None = None
        final: FinalRun | None = None
        shaped: ShapedQuery | None = None
        if chosen is not None and chosen.status not in ("rejected", "blocked"):
            # A query the guard or the type check refused was never sent: there is no final query to show.
            final_sparql = without_exploratory_limit(chosen.sparql)
        if chosen is not None and final_sparql is not None and chosen.status in ("ok", "empty"):
            settings = ExecuteSettings(
                type_check=False,
                record_types=False,
                diagnose_empty=True,
                max_result_rows=context.answer_rows,
                max_rows_shown=min(context.answer_rows, 50),
                max_bytes=context.max_observation_bytes,
            )
            tools = attempt_tools(self.dependencies, context, chosen)
            step = state.get("steps", 0)
            display = tools.context.vocabulary.display_predicates()
            shaped = shaped_final(final_sparql, state.get("question", ""), context, display)
            outcome = tools.execute(shaped.scored if shaped else final_sparql, theta=None, step=step, settings=settings)
            if shaped is not None and outcome.status not in ("ok", "empty"):
                # Shaping only removes projected columns; should the result not run, the model's query is kept.
                shaped = None
                outcome = tools.execute(final_sparql, theta=None, step=step, settings=settings)
            final = final_run(outcome)
            if outcome.status in ("ok", "empty"):
                answer = answer_of(outcome.result, outcome.text)
            else:
                answer = Answer(text=outcome.text)
        elif chosen is not None:
            # The final query never ran (refused, blocked) or failed: say so, never run an earlier one instead.
            final = FinalRun(status=chosen.status, error_kind=chosen.error_kind, error_reason=chosen.error_reason)
        run_outcome = derive_outcome(stop_reason, final, earlier=earlier_result(attempts, chosen))
        summary = summarise(state, stop_reason)
        if shaped is not None:
            summary = summary.model_copy(update={"unshaped_sparql": final_sparql, "dropped_columns": shaped.dropped})
            final_sparql = shaped.scored
        delta.update(
            {
                "final_sparql": final_sparql,
                "answer": answer,
                "status": run_outcome.status,
                "outcome": run_outcome,
                "attempts": [],
                "summary": summary,
            }
        )
        pending = state.get("pending_action")
        if isinstance(pending, Action) and pending.tool == "stop":
            # Answer the stop call so the transcript has no dangling tool call.
            delta["messages"] = [
                ToolMessage(f"Finished: {run_outcome.status}.", tool_call_id=pending.call_id, name="stop")
            ]
        return delta


def final_run(outcome: ExecuteOutcome) -> FinalRun:
    """What the outcome rules need of the final query's run (outside text cleaned and capped)."""
    error = outcome.error
    message = error.message if error is not None else ""
    if outcome.diagnosis is not None:
        message = outcome.diagnosis.message
    return FinalRun(
        status=outcome.status,
        row_count=outcome.row_count,
        exact=outcome.row_count_exact,
        complete=outcome.complete,
        error_kind=error.kind if error is not None else None,
        error_reason=error.reason if error is not None else None,
        message=graph_text(message, 600) if message else "",
    )


def shaped_final(
    sparql: str, question: str, context: SagaContext, label_properties: Sequence[str] = ()
) -> ShapedQuery | None:
    """The final query split by the answer-shape rule, or ``None`` when the switch is off or nothing is dropped.

    ``label_properties`` are the source's own naming and describing properties (its vocabulary's).
    """
    if not context.answer_shape:
        return None
    shaped = shape_query(sparql, question or None, label_properties=label_properties)
    return shaped if shaped.dropped else None


def answer_of(result: QueryResult | None, text: str) -> Answer:
    """The answer record of a final result (full IRIs and lexical forms)."""
    if result is None:
        return Answer(text=text)
    # The state is read by hosts (LangGraph API, the web page): values pass the one sanitiser, uncapped.
    rows = tuple({var: outside_value(term.value, None) for var, term in row.items()} for row in result.rows)
    return Answer(variables=tuple(result.variables), rows=rows, boolean=result.boolean, row_count=len(rows), text=text)


def summarise(state: SagaState, stop_reason: str) -> TraceSummary:
    """Counts describing the run so far."""
    outcomes = Counter(str(step.outcome) for step in state.get("history", []))
    return TraceSummary(
        steps=state.get("steps", 0),
        llm_calls=state.get("llm_calls", 0),
        outcomes=dict(outcomes),
        attempts=len(state.get("attempts", [])),
        token_usage=state.get("token_usage") or TraceSummary().token_usage,
        stop_reason=stop_reason,
    )

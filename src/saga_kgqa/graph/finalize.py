"""The ``finalize`` node: pick the final query, run it without its exploratory LIMIT, and report.

The final query is the last one that returned rows (or an ASK answer); failing that, the
last one that ran. (A run whose queries all failed to run ends ``failed``; one with no
query at all ``gave_up``.) It is run once more without a top-level LIMIT the model added while
exploring (a LIMIT under ORDER BY is part of the question, "the oldest", and stays),
under the answer row cap, and its rows become the answer. Every attempt stays in the
output, whatever the outcome.

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
from saga_kgqa.context import SagaContext, resolve_context
from saga_kgqa.graph.dependencies import GraphDependencies
from saga_kgqa.graph.source_tools import attempt_tools
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.kg.guard.sparql_lexer import tokenize
from saga_kgqa.state import Action, Answer, QueryAttempt, RunStatus, TraceSummary
from saga_kgqa.state.graph_state import SagaState
from saga_kgqa.text_safety import outside_value
from saga_kgqa.tools.execute.tool import ExecuteSettings


def choose_final_query(attempts: list[QueryAttempt]) -> QueryAttempt | None:
    """The last attempt that answered, else the last one that ran empty, else ``None``."""
    for wanted in ("ok", "empty"):
        for attempt in reversed(attempts):
            if attempt.status == wanted:
                return attempt
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
        """Run the final query and write the output fields."""
        context = resolve_context(runtime.context)
        stop_reason = state.get("stop_reason") or "max_steps"
        attempts = list(state.get("attempts", []))
        chosen = choose_final_query(attempts)
        delta: dict[str, Any] = {"stop_reason": stop_reason, "pending_action": None}
        final_sparql: str | None = None
        answer: Answer | None = None
        status: RunStatus = "budget_exhausted" if stop_reason == "max_steps" else "gave_up"
        if chosen is None and attempts and stop_reason == "stop":
            # Queries were tried but none ran (rejected, blocked, failed): say so, never fabricate.
            status = "failed"
        shaped: ShapedQuery | None = None
        if chosen is not None:
            final_sparql = without_exploratory_limit(chosen.sparql)
            settings = ExecuteSettings(
                type_check=False,
                record_types=False,
                diagnose_empty=False,
                max_result_rows=context.answer_rows,
                max_rows_shown=min(context.answer_rows, 50),
                max_bytes=context.max_observation_bytes,
            )
            tools = attempt_tools(self.dependencies, context, chosen)
            step = state.get("steps", 0)
            display = tools.toolkit.context.vocabulary.display_predicates()
            shaped = shaped_final(final_sparql, state.get("question", ""), context, display)
            outcome = tools.execute(shaped.scored if shaped else final_sparql, theta=None, step=step, settings=settings)
            if shaped is not None and outcome.status not in ("ok", "empty"):
                # Shaping only removes projected columns; should the result not run, the model's query is kept.
                shaped = None
                outcome = tools.execute(final_sparql, theta=None, step=step, settings=settings)
            if outcome.status in ("ok", "empty"):
                answer = answer_of(outcome.result, outcome.text)
                if stop_reason == "stop":
                    status = "answered"
            else:
                status = "failed"
                answer = Answer(text=outcome.text)
        summary = summarise(state, stop_reason)
        if shaped is not None:
            summary = summary.model_copy(update={"unshaped_sparql": final_sparql, "dropped_columns": shaped.dropped})
            final_sparql = shaped.scored
        delta.update(
            {
                "final_sparql": final_sparql,
                "answer": answer,
                "status": status,
                "attempts": [],
                "summary": summary,
            }
        )
        pending = state.get("pending_action")
        if isinstance(pending, Action) and pending.tool == "stop":
            # Answer the stop call so the transcript has no dangling tool call.
            delta["messages"] = [ToolMessage(f"Finished: {status}.", tool_call_id=pending.call_id, name="stop")]
        return delta


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

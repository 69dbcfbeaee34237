"""The execute tool: guard, pre-execution type check, run, record result types, diagnose empty results.

``execute`` is a plain function; agent nodes and MCP tools wrap it. It never raises for
anything a model can cause: every outcome (rejected, blocked, empty, error, ok) comes back
as an :class:`ExecuteOutcome` whose ``text`` is the capped, escaped observation and whose
``theta_delta`` is the type evidence to fold into Θ (:func:`saga_kgqa.state.merge_type_state`).

What enters Θ depends on the outcome: the declared types of the query's constants
always (they are facts read from the graph); the query's own type patterns and the types
of returned entities only when the query returned rows, so a wrong guess in a failed
query never becomes evidence that blocks a later one.

One deadline (``ExecuteSettings.deadline_s``) bounds the whole call: the guard, the type
check, the query and the empty-result diagnosis each get what the earlier stages left.
A check that used all of it ends the call in a ``QueryTimeout`` observation naming that
check, and the query is not sent; after the query, what no time is left for is skipped
with a note.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace

from saga_kgqa.errors import BackendError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.clock import SYSTEM_CLOCK, Deadline
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import CompatibilityMode, SchemaIndex
from saga_kgqa.state import TypeState, merge_type_state, trace_types
from saga_kgqa.tools.execute.empty_diagnosis import diagnose_empty
from saga_kgqa.tools.execute.graph_access import fetch_types
from saga_kgqa.tools.execute.models import ExecuteError, ExecuteOutcome, ExecuteSettings, ExecuteStatus
from saga_kgqa.tools.execute.preflight import Preflight, preflight
from saga_kgqa.tools.execute.text import failure_outcome, stage_timeout_outcome, types_seen_text
from saga_kgqa.tools.render import cap_bytes, render_result_table

__all__ = [
    "ExecuteError",
    "ExecuteOutcome",
    "ExecuteSettings",
    "ExecuteStatus",
    "Preflight",
    "execute",
    "preflight",
]


def execute(
    sparql: str,
    *,
    graph: KnowledgeGraph,
    schema: SchemaIndex | None = None,
    theta: TypeState | None = None,
    mode: CompatibilityMode = "subclass",
    settings: ExecuteSettings | None = None,
    step: int | None = None,
) -> ExecuteOutcome:
    """Check, type-check and run a (partial) SPARQL query written by a model.

    Args:
        sparql: The query text, as the model wrote it.
        graph: The graph behind its read-only guard.
        schema: The schema index; without one (or with an empty one) nothing is blocked.
        theta: The type state of earlier steps.
        mode: ``subclass`` (subclass-aware, default) or ``exact`` compatibility.
        settings: Switches and caps.
        step: The agent step, recorded on new type evidence.

    Returns:
        The outcome; this function does not raise for bad queries, store failures or a spent deadline.
    """
    settings = settings or ExecuteSettings()
    schema = schema or SchemaIndex()
    deadline = Deadline(SYSTEM_CLOCK, settings.deadline_s)
    checks = preflight(
        sparql, graph=graph, schema=schema, theta=theta, mode=mode, settings=settings, step=step, deadline=deadline
    )
    checked = checks.checked
    if checks.stop is not None or checked is None:
        # preflight always sets ``stop`` when the guard gave no checked query
        return checks.stop or ExecuteOutcome(status="error", text="[ERROR] the query could not be checked.")
    left = deadline.remaining()
    if left <= 0:
        return stage_timeout_outcome(
            "pre-execution type check",
            deadline.total_s,
            query=checked.text,
            max_bytes=settings.max_bytes,
            theta_delta=checks.constants,
        )
    started = time.perf_counter()
    try:
        result = graph.run(checked, ExecutionLimits(deadline_s=left, max_rows=settings.max_result_rows))
    except BackendError as exc:
        failed = failure_outcome(
            "error", exc, query=checked.text, max_bytes=settings.max_bytes, theta_delta=checks.constants
        )
        return failed.model_copy(update={"rewrites": checked.rewrites})
    finished = _finish(checks, checked, result, time.perf_counter() - started, graph, schema, settings, step, deadline)
    return finished.model_copy(update={"rewrites": checked.rewrites})


def _finish(
    checks: Preflight,
    checked: CheckedQuery,
    result: QueryResult,
    elapsed: float,
    graph: KnowledgeGraph,
    schema: SchemaIndex,
    settings: ExecuteSettings,
    step: int | None,
    deadline: Deadline,
) -> ExecuteOutcome:
    """Render a result, record its types, and diagnose it when it is empty, in what is left of the deadline."""
    display = checks.display_prefixes
    notes = list(checks.notes)
    row_count = len(result.rows)
    # The knowledge graph marks a result the guard's LIMIT or our row cap cut as truncated.
    exact = result.complete and not result.truncated
    empty = row_count == 0 if result.form != "ASK" else not result.boolean
    diagnosis = None
    if empty and settings.diagnose_empty and checks.root is not None and result.complete:
        left = deadline.remaining()
        if left > 0:
            budget = replace(settings.diagnosis, total_deadline_s=min(settings.diagnosis.total_deadline_s, left))
            diagnosis = diagnose_empty(checks.root, graph=graph, display_prefixes=display, settings=budget)
        else:
            notes.append("no time was left in the deadline to find why the result is empty")
    delta = checks.constants
    types_line = ""
    if not empty:
        delta = merge_type_state(delta, checks.pattern_types)
        if settings.record_types and result.form == "SELECT":
            trace, types_line = _trace(result, graph, schema, settings, display, step, notes, deadline)
            delta = merge_type_state(delta, trace)
    shown = 0 if result.form == "ASK" else min(row_count, settings.max_rows_shown)
    table = render_result_table(
        result, max_rows=settings.max_rows_shown, max_cell_chars=settings.max_cell_chars, prefixes=display
    )
    parts = [f"{'[EMPTY]' if empty and result.form != 'ASK' else '[OK]'} {table}"]
    if types_line:
        parts.append(types_line)
    if diagnosis is not None:
        parts.append(f"Diagnosis: {diagnosis.message}")
    return ExecuteOutcome(
        status="empty" if empty and result.form != "ASK" else "ok",
        text=cap_bytes("\n".join(parts), settings.max_bytes),
        query=checked.text,
        form=result.form,
        variables=tuple(result.variables),
        row_count=row_count,
        row_count_exact=exact,
        rows_shown=shown,
        boolean=result.boolean,
        complete=result.complete,
        elapsed_s=elapsed,
        theta_delta=delta,
        diagnosis=diagnosis,
        notes=tuple(notes),
        result=result,
    )


def _trace(
    result: QueryResult,
    graph: KnowledgeGraph,
    schema: SchemaIndex,
    settings: ExecuteSettings,
    display: Mapping[str, str],
    step: int | None,
    notes: list[str],
    deadline: Deadline,
) -> tuple[TypeState, str]:
    """Read the types of a sample of the returned entities: trace-local evidence per variable."""
    sample: dict[str, list[str]] = {}
    for variable in result.variables:
        seen: dict[str, None] = {}
        for term in result.column(variable):
            if term.kind == "uri" and len(seen) < settings.trace_sample:
                seen.setdefault(term.value, None)
        if seen:
            sample[variable] = list(seen)
    entities = list(dict.fromkeys(e for values in sample.values() for e in values))
    if not entities:
        return TypeState(), ""
    try:
        types = fetch_types(
            graph, entities, type_predicates=schema.type_predicates, deadline_s=deadline.cap(settings.helper_deadline_s)
        )
    except BackendError as exc:
        notes.append(f"could not read the types of the returned entities ({type(exc).__name__})")
        return TypeState(), ""
    sampled_rows = QueryResult(
        form="SELECT",
        variables=list(sample),
        rows=[{v: row[v] for v in sample if v in row} for row in result.rows],
    )
    delta = trace_types(sampled_rows, types, step=step, detail="execute")
    per_variable = {v: delta.types_of(f"?{v}") for v in sample}
    return delta, types_seen_text(per_variable, display)

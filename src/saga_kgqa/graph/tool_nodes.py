"""The tool nodes: search, lookup, examples, worked_examples, execute, and the refusal of actions that cannot run.

Tool nodes are plain ``def`` functions: they do blocking store I/O, which LangGraph runs
in a worker thread (an ``async def`` node doing this would block the event loop and is
rejected under ``langgraph dev``). Each returns a delta: the step for the history, the
knowledge-log lines, Θ's new evidence and its "[info] type discovered" lines (both only
when ``persistent_type_state`` is on: types must not reach later steps without it), the
tool message for the transcript, and the cleared pending action. Errors a model can
cause (bad ids, bad queries) and store failures become observations, never exceptions.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.runtime import Runtime

from saga_kgqa.config.context import SagaContext, resolve_context
from saga_kgqa.errors import BackendError, ConfigurationError, ToolInputError
from saga_kgqa.graph.clarify import ambiguous_hits, ask_which, chosen_text
from saga_kgqa.graph.dependencies import GraphDependencies
from saga_kgqa.graph.records import discovered_types, knowledge, step_record
from saga_kgqa.state import ANSWER_KEY, Action, KnowledgeEntry, Outcome, PruneRequest, QueryAttempt, TypeState
from saga_kgqa.state.graph_state import SagaState
from saga_kgqa.text_safety import graph_text
from saga_kgqa.tools import LookupResult
from saga_kgqa.tools.execute.tool import ExecuteOutcome, ExecuteSettings
from saga_kgqa.tools.failure_text import ERROR_TEXT_CAP, error_observation

_PROPERTIES_HEADER = "Properties ("


class ToolNodes:
    """Nodes that call the knowledge-graph tools, bound to the graph's dependencies."""

    def __init__(self, dependencies: GraphDependencies) -> None:
        """Keep the factories."""
        self.dependencies = dependencies

    def search(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run ``search(text)``."""
        context, action, step = begin_step(state, runtime)
        try:
            result = self.dependencies.tools(context).search(action.argument)
        except (ToolInputError, BackendError) as exc:
            return _failed(action, step, exc)
        outcome: Outcome = "ok" if result.hits else "empty"
        entry = knowledge(step, outcome, f"search {action.argument[:60]!r}: {len(result.hits)} hits")
        # Several entities named alike: the caller chooses (a LangGraph interrupt; never under clarify=never).
        chosen = ask_which(result, context, question=state.get("question", ""), step=step)
        if chosen is None:
            return finish_action(action, step, result.text, outcome, [entry])
        offered = len(ambiguous_hits(result, context.clarify_margin))
        said = chosen_text(chosen, graph_text(result.query, 120), offered)
        entries = [entry, knowledge(step, "info", said.strip())]
        return finish_action(action, step, said + result.text, outcome, entries)

    def examples(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run ``examples(property)``."""
        context, action, step = begin_step(state, runtime)
        try:
            result = self.dependencies.tools(context).examples(action.argument)
        except (ToolInputError, BackendError) as exc:
            return _failed(action, step, exc)
        outcome: Outcome = "ok" if result.found else "empty"
        entry = knowledge(step, outcome, f"examples {result.info.property.id}: {len(result.examples)} triples")
        return finish_action(action, step, result.text, outcome, [entry])

    def worked_examples(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run ``worked_examples(question)``: the configured examples nearest to it, never the run's own question."""
        from saga_kgqa.examples.serving import examples_text, worked_examples

        context, action, step = begin_step(state, runtime)
        try:
            chosen = worked_examples(
                context, action.argument, context.examples_k, run_question=state.get("question", "")
            )
        except ConfigurationError as exc:  # the operator's file went missing mid-run: say so, do not crash
            text = f"Worked examples are unavailable: {graph_text(exc.message, ERROR_TEXT_CAP)}"
            return finish_action(action, step, text, "error", [knowledge(step, "error", text)])
        outcome: Outcome = "ok" if chosen else "empty"
        text = examples_text(chosen, context.max_observation_bytes) if chosen else "No worked example fits."
        entry = knowledge(step, outcome, f"worked_examples {action.argument[:60]!r}: {len(chosen)} examples")
        return finish_action(action, step, text, outcome, [entry])

    def patterns(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run ``patterns(entity)``: its patterns ranked for the question, type-filtered like lookup."""
        from saga_kgqa.tools.patterns.configured import configured_ranking

        context, action, step = begin_step(state, runtime)
        try:
            result = self.dependencies.tools(context).patterns(
                action.argument,
                question=state.get("question", ""),
                theta=_theta_for_tools(state, context),
                ranking=configured_ranking(context),
                top_n=context.mars_top_n,
            )
        except (ToolInputError, BackendError) as exc:
            return _failed(action, step, exc)
        outcome: Outcome = "ok" if result.found else "empty"
        summary = f"patterns {action.argument[:60]}: {len(result.shown)} shown, {len(result.hidden)} hidden by type"
        return finish_action(action, step, result.text, outcome, [knowledge(step, outcome, summary)])

    def lookup(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run the type-constrained ``lookup(entity)``; an untyped entity goes to the prune fallback."""
        context, action, step = begin_step(state, runtime)
        tools = self.dependencies.tools(context)
        try:
            result = tools.lookup(action.argument, theta=_theta_for_tools(state, context), step=step)
        except (ToolInputError, BackendError) as exc:
            return _failed(action, step, exc)
        theta_delta = result.type_delta if context.persistent_type_state else TypeState()
        entries = discovered_types(state.get("theta"), theta_delta, step, tools.prefix_index)
        if result.needs_prune_fallback and context.prune_fallback:
            request = prune_request(result, action, step)
            if request is not None:
                return {
                    "prune_request": request,
                    "pending_action": None,
                    "theta": theta_delta,
                    "knowledge_log": entries,
                }
        outcome: Outcome = "ok" if result.found else "empty"
        summary = (
            f"lookup {result.entity.id}: {len(result.types)} types, {result.shown} properties shown, "
            f"{len(result.hidden)} hidden by domain"
        )
        return finish_action(
            action, step, result.text, outcome, [knowledge(step, outcome, summary), *entries], theta_delta
        )

    def execute(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run ``execute(sparql)``: guard, type check, run, record result types, diagnose an empty result."""
        context, action, step = begin_step(state, runtime)
        tools = self.dependencies.tools(context)
        settings = ExecuteSettings(max_rows_shown=context.max_rows_shown, max_bytes=context.max_observation_bytes)
        result = tools.execute(action.argument, theta=_theta_for_tools(state, context), step=step, settings=settings)
        theta_delta = result.theta_delta if context.persistent_type_state else TypeState()
        attempt = QueryAttempt(
            step=step,
            sparql=action.argument,
            status=result.status,
            row_count=result.row_count,
            boolean=result.boolean,
            error_kind=result.error.kind if result.error is not None else None,
            error_reason=result.error.reason if result.error is not None else None,
        )
        outcome: Outcome = result.status
        entries = [knowledge(step, outcome, execute_summary(result))]
        entries += discovered_types(state.get("theta"), theta_delta, step, tools.prefix_index)
        delta = finish_action(action, step, result.text, outcome, entries, theta_delta)
        delta["attempts"] = [attempt]
        return delta

    def refuse_action(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Answer an action that cannot run (unknown tool, bad arguments, a repeat) without running anything."""
        action = state.get("pending_action")
        step = state.get("steps", 0)
        if not isinstance(action, Action):
            return {"pending_action": None}
        problem = action.problem or "This action cannot run."
        return finish_action(action, step, problem, "refused", [knowledge(step, "refused", problem)])


def execute_summary(result: ExecuteOutcome) -> str:
    """One knowledge-log line for an execute outcome."""
    if result.status == "ok":
        if result.boolean is not None:
            return f"execute: ASK answered {str(result.boolean).lower()}"
        return f"execute: {result.row_count} rows"
    if result.status == "empty":
        reason = result.diagnosis.message if result.diagnosis is not None else "no rows"
        return f"execute: {reason}"
    if result.status == "blocked":
        if not result.blocked:
            return "execute: not run, a type conflict"
        first = result.blocked[0]
        constraint = "domain" if first.side == "subject" else "range"
        return f"execute: `{first.pattern}` conflicts with the {constraint} of its property"
    message = result.error.message if result.error is not None else result.status
    return f"execute: {graph_text(message, ERROR_TEXT_CAP)}"


def prune_request(result: LookupResult, action: Action, step: int) -> PruneRequest | None:
    """Split a rendered lookup into the parts the prune fallback keeps and the property lines it chooses from.

    Returns ``None`` when the text does not list the properties line by line as expected
    (then the lookup is shown unpruned).
    """
    lines = result.text.splitlines()
    header = next((i for i, line in enumerate(lines) if line.startswith(_PROPERTIES_HEADER)), None)
    if header is None or result.shown == 0:
        return None
    body = lines[header + 1 : header + 1 + result.shown]
    ids = [kept.info.property.id for kept in result.kept[: result.shown]]
    if len(body) != len(ids) or not all(prop_id in line for prop_id, line in zip(ids, body, strict=True)):
        return None
    return PruneRequest(
        step=step,
        argument=action.argument,
        entity=f"{result.entity.label or result.entity.id} ({result.entity.id})",
        head="\n".join(lines[:header]),
        lines=tuple(zip(ids, body, strict=True)),
        tail="\n".join(lines[header + 1 + result.shown :]),
        thought=action.thought,
    )


def begin_step(state: SagaState, runtime: Runtime[SagaContext]) -> tuple[SagaContext, Action, int]:
    """The run's context, the pending action and the step number a tool node works with."""
    action = state.get("pending_action")
    if not isinstance(action, Action):
        # Routing sends only valid actions here; a hand-edited state still gets an answer.
        action = Action(tool="", call_id="missing", problem="no action")
    return resolve_context(runtime.context), action, state.get("steps", 0)


def _theta_for_tools(state: SagaState, context: SagaContext) -> TypeState | None:
    """Θ as the tools may use it: all of it, or (without persistence) only the answer prior."""
    theta = state.get("theta")
    if theta is None or context.persistent_type_state:
        return theta
    prior = theta.evidence(ANSWER_KEY)
    return TypeState(entries={ANSWER_KEY: prior}) if prior else TypeState()


def _failed(action: Action, step: int, exc: ToolInputError | BackendError) -> dict[str, Any]:
    # Error messages carry outside text (a server's error body, the model's own argument):
    # error_observation passes them through the same sanitiser as every other piece of graph text.
    text = error_observation(exc, action.tool)
    return finish_action(action, step, text, "error", [knowledge(step, "error", text)])


def finish_action(
    action: Action,
    step: int,
    observation: str,
    outcome: Outcome,
    entries: list[KnowledgeEntry],
    theta_delta: TypeState | None = None,
) -> dict[str, Any]:
    """The state delta of a handled action: its history step, knowledge-log entries, tool message and Θ delta."""
    delta: dict[str, Any] = {
        "pending_action": None,
        "history": [step_record(step, action, observation, outcome)],
        "knowledge_log": entries,
        "messages": [
            ToolMessage(
                observation,
                tool_call_id=action.call_id,
                name=action.tool or "none",
                status="error" if outcome in ("refused", "error", "rejected", "flagged") else "success",
            )
        ],
    }
    if theta_delta is not None and theta_delta.entries:
        delta["theta"] = theta_delta
    return delta

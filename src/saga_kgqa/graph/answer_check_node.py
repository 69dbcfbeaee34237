"""The ``check_answer`` node: the answer checks run when the controller stops, before ``stop`` is accepted.

The first ``stop`` after a query is checked (:mod:`saga_kgqa.checks`, each check a switch
in :class:`~saga_kgqa.config.context.SagaContext`). Findings come back to the controller as the
stop's observation and the run goes on; the query and the answer are never rewritten. A
second ``stop`` on the same final query is accepted, whatever the checks say, so a
check can never trap a run.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from saga_kgqa.checks import CheckInput, CheckName, run_checks
from saga_kgqa.checks.models import ExpectedKind
from saga_kgqa.config.context import SagaContext, resolve_context
from saga_kgqa.graph.dependencies import GraphDependencies
from saga_kgqa.graph.finalize import choose_final_query, without_exploratory_limit
from saga_kgqa.graph.records import knowledge
from saga_kgqa.graph.source_tools import attempt_tools
from saga_kgqa.graph.tool_nodes import finish_action
from saga_kgqa.state import Action
from saga_kgqa.state.graph_state import SagaState
from saga_kgqa.tools.execute.tool import ExecuteSettings


def enabled_checks(context: SagaContext) -> tuple[CheckName, ...]:
    """The checks the context switches on."""
    switches: dict[CheckName, bool] = {
        "answer_type": context.check_answer_type,
        "question_form": context.check_question_form,
        "know_before_use": context.check_know_before_use,
        "consistency": context.check_consistency,
        # An answer from a step whose dependent step came back empty is a wrong answer's kind too.
        "dependent_step": context.check_answer_type,
    }
    return tuple(name for name, on in switches.items() if on)


class AnswerCheckNode:
    """The ``check_answer`` node, bound to the graph's dependencies."""

    def __init__(self, dependencies: GraphDependencies) -> None:
        """Keep the factories."""
        self.dependencies = dependencies

    def __call__(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Accept the stop (no change), or send the findings back and clear the stop."""
        context = resolve_context(runtime.context)
        action = state.get("pending_action")
        chosen = choose_final_query(list(state.get("attempts", [])), context.final_query)
        enabled = enabled_checks(context)
        if not isinstance(action, Action) or chosen is None or chosen.status not in ("ok", "empty") or not enabled:
            # A final query that never ran (refused, failed) has no answer to check: finalize says so.
            return {}
        sparql = without_exploratory_limit(chosen.sparql)
        if sparql in state.get("answers_checked", []):
            return {}
        # A cross-source answer is checked on the source it ran on (execute_on), not the run's graph.
        tools = attempt_tools(self.dependencies, context, chosen)
        settings = ExecuteSettings(
            type_check=False, record_types=False, diagnose_empty=False, max_result_rows=context.answer_rows
        )
        outcome = tools.execute(sparql, theta=None, step=state.get("steps", 0), settings=settings)
        result = outcome.result
        answer_type = state.get("answer_type")
        kind: ExpectedKind = answer_type.kind if answer_type is not None else "unknown"
        item = CheckInput(
            question=state.get("question", ""),
            sparql=sparql,
            rows=list(result.rows) if result is not None else [],
            boolean=result.boolean if result is not None else None,
            expected=kind,
            # What the run saw, and what it wrote before: an earlier query's IRIs are the run's own.
            observations=[
                text for s in state.get("history", []) if s.step < chosen.step for text in (s.observation, s.argument)
            ],
            exists=tools.mentions,
            expected_label=answer_type.label if answer_type is not None else "",
            later_empty=[
                (a.step, a.sparql) for a in state.get("attempts", []) if a.step > chosen.step and a.status == "empty"
            ],
        )
        findings = run_checks(item, tools.prefixes, enabled)
        if not findings:
            return {"answers_checked": [sparql]}
        text = "\n".join(
            [
                "Stop not accepted yet: the answer checks found something to look at "
                "(stop again with the same query to answer anyway).",
                *(f.text() for f in findings),
            ]
        )
        step = state.get("steps", 0)
        summary = "answer checks: " + "; ".join(f.check for f in findings)
        # Not a refusal (of the action, by the guard, or of the run): the stop is sent back with findings.
        delta = finish_action(action, step, text, "flagged", [knowledge(step, "flagged", summary)])
        delta.update({"stop_reason": "", "answers_checked": [sparql]})
        return delta

"""The ``evidence`` node: after ``finalize``, the triples behind each answer row, written to the output.

It reads the final query and its answer from the state and asks the graph the final query ran
on (the run's own, or the named source of an ``execute_on`` attempt) for the supporting triples
of the first ``evidence_rows`` rows (:func:`saga_kgqa.tools.evidence.gather.gather_evidence`).
Evidence explains an answer and never changes it: the status, the answer and the final query
stay as ``finalize`` wrote them, and a read that fails leaves a note in the evidence instead.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from saga_kgqa.config.context import SagaContext, resolve_context
from saga_kgqa.errors import SagaError
from saga_kgqa.graph.dependencies import GraphDependencies
from saga_kgqa.graph.source_tools import attempt_tools
from saga_kgqa.state import Answer, QueryAttempt
from saga_kgqa.state.evidence import Evidence
from saga_kgqa.state.graph_state import SagaState
from saga_kgqa.tools.evidence.gather import EvidenceSettings, gather_evidence
from saga_kgqa.tools.toolbox import ToolView


class EvidenceNode:
    """The ``evidence`` node, bound to the graph's dependencies."""

    def __init__(self, dependencies: GraphDependencies) -> None:
        """Keep the factories."""
        self.dependencies = dependencies

    def __call__(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Write ``evidence`` (``None`` when there is no final query, or evidence is switched off)."""
        context = resolve_context(runtime.context)
        sparql = state.get("final_sparql")
        answer = state.get("answer")
        if not sparql or context.evidence_rows == 0 or not isinstance(answer, Answer):
            return {"evidence": None}
        try:
            view = self._view(context, list(state.get("attempts", [])))
        except SagaError as exc:
            return {"evidence": Evidence(sparql=sparql, note=f"the graph of the final query is gone: {exc.message}")}
        settings = EvidenceSettings(
            rows=context.evidence_rows, deadline_s=view.context.caps.deadline_s, language=context.language
        )
        evidence = gather_evidence(
            view.graph,
            sparql,
            answer,
            prefixes=view.prefix_index,
            label_predicates=tuple(view.context.vocabulary.label_predicates),
            settings=settings,
        )
        return {"evidence": evidence}

    def _view(self, context: SagaContext, attempts: list[QueryAttempt]) -> ToolView:
        """The tools over the graph the final query ran on: the source of the last attempt that ran, if it had one."""
        # The final query is the last executed one (issue 37): its attempt is the last that ran.
        for attempt in reversed(attempts):
            if attempt.status in ("ok", "empty"):
                return attempt_tools(self.dependencies, context, attempt)
        return self.dependencies.tools(context)

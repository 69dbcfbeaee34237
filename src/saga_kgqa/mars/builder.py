"""Build the MARS graph.

Wiring::

    START → link → retrieve → reason ─┬→ execute ─┬→ verify ─┬→ execute (the rewrite)
                      ↑               │           │          └→ finalize → END
                      └── (expand) ───┘           ├→ reason (the query failed: try again)
                                       (hop limit, └→ finalize
                                        budget) → finalize

Like SAGA's graph it holds no model or store: both come from factories called with the
run's :class:`~saga_kgqa.config.context.SagaContext`; ``finalize`` is SAGA's own node.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy

from saga_kgqa.config.context import SagaContext
from saga_kgqa.graph.dependencies import GraphDependencies, ToolboxFactory
from saga_kgqa.graph.evidence_node import EvidenceNode
from saga_kgqa.graph.finalize import FinalizeNode
from saga_kgqa.graph.model_calls import ModelFactory, no_model_configured, transient_provider_error
from saga_kgqa.graph.tracing import traced_tool_call
from saga_kgqa.mars.nodes import MarsNodes
from saga_kgqa.state.graph_state import InputState, OutputState
from saga_kgqa.state.mars import MarsState

MarsGraph = CompiledStateGraph[MarsState, SagaContext, InputState, OutputState]


def route_after_reason(state: Mapping[str, Any]) -> Literal["execute", "retrieve", "reason", "finalize"]:
    """A query runs, an expansion retrieves, a bad reply asks again, a stop finalizes."""
    if state.get("stop_reason"):
        return "finalize"
    if state.get("candidate_sparql"):
        return "execute"
    return "retrieve" if state.get("frontier") else "reason"


def route_after_execute(state: Mapping[str, Any]) -> Literal["verify", "reason", "finalize"]:
    """A result is verified once; a failed query goes back to the reasoner."""
    if state.get("stop_reason"):
        return "finalize"
    history = state.get("history") or []
    last = history[-1] if history else None
    if last is not None and last.outcome in ("ok", "empty"):
        return "verify"
    return "reason"


def route_after_verify(state: Mapping[str, Any]) -> Literal["execute", "finalize"]:
    """A rewrite runs; an accepted result finalizes."""
    return "execute" if state.get("candidate_sparql") and not state.get("stop_reason") else "finalize"


def build_mars_graph(
    *,
    toolbox_factory: ToolboxFactory,
    model_factory: ModelFactory | None = None,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    model_retry: RetryPolicy | None = None,
    name: str = "mars",
) -> MarsGraph:
    """Compile the MARS graph (see :func:`saga_kgqa.graph.builder.build_graph` for the arguments).

    Model roles: ``mars_link``, ``mars_reason`` and ``mars_verify``. Budgets: ``max_steps``
    bounds reasoner calls, ``mars_hop_limit`` expansions. Invoke with
    :func:`saga_kgqa.graph.builder.run_config`: its recursion limit, ``3 * max_steps + 6``,
    is never reached first, since a run takes at most ``3 * max_steps + 4`` supersteps (link,
    retrieve, then per reasoner step at most execute and verify or one retrieve, one rewrite
    executed once, finalize).
    """
    dependencies = GraphDependencies(model_factory or no_model_configured, toolbox_factory)
    nodes = MarsNodes(dependencies)
    model_retry = model_retry or RetryPolicy(max_attempts=3, initial_interval=1.0, retry_on=transient_provider_error)
    builder = StateGraph(MarsState, input_schema=InputState, output_schema=OutputState, context_schema=SagaContext)
    builder.add_node("link", nodes.link, retry_policy=model_retry)
    builder.add_node("retrieve", _traced("patterns", "frontier", nodes.retrieve))
    builder.add_node("reason", nodes.reason, retry_policy=model_retry)
    builder.add_node("execute", _traced("execute", "candidate_sparql", nodes.execute))
    builder.add_node("verify", nodes.verify, retry_policy=model_retry)
    builder.add_node("finalize", FinalizeNode(dependencies))
    builder.add_node("evidence", EvidenceNode(dependencies))
    builder.add_edge(START, "link")
    builder.add_edge("link", "retrieve")
    builder.add_edge("retrieve", "reason")
    builder.add_conditional_edges("reason", route_after_reason)
    builder.add_conditional_edges("execute", route_after_execute)
    builder.add_conditional_edges("verify", route_after_verify)
    builder.add_edge("finalize", "evidence")
    builder.add_edge("evidence", END)
    return builder.compile(checkpointer=checkpointer, name=name)


class _MarsNode(Protocol):
    """A node of the MARS graph."""

    def __call__(self, state: MarsState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run the node."""


def _traced(tool: str, argument: str, node: _MarsNode) -> _MarsNode:
    """The node as its own ``tool:<name>`` run (SAGA's tracing), with the state field it acts on as argument.

    The wrapper is annotated with :class:`MarsState`: LangGraph gives a node only the fields
    of the schema its first parameter names, so SAGA's wrapper (typed ``SagaState``) would hide
    the MARS fields from it.
    """

    def traced(state: MarsState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        arguments = {"argument": state.get(argument)}
        return traced_tool_call(tool, arguments, lambda: node(state, runtime), step=state.get("steps"))

    return traced

"""Build the SAGA controller graph: answer type → controller → tools → controller … → finalize.

Wiring (every node returns a delta; routers are pure; a node followed by a router returns its delta with
the router's choice, :func:`routed`)::

    START → predict_answer_type → controller ─┬→ search ───────────┐
                                              ├→ lookup ─┬─────────┤
                                              │          └→ prune_fallback ┤
                                              ├→ patterns ─────────┤
                                              ├→ examples, worked_examples ┤
                                              ├→ execute ──────────┤
                                              ├→ find_sources, summary, resolve, expand, bridge, execute_on, join ┤
                                              ├→ refuse_action ────┤→ controller
                                              └→ finalize → END

The compiled graph holds no model, store or checkpointer: the model comes from
``model_factory`` and the graph and schema from ``toolbox_factory``, both called with
the run's :class:`~saga_kgqa.config.context.SagaContext`. So the same compiled graph can be served
by ``langgraph dev``, embedded as a subgraph, or compiled with a checkpointer by the CLI.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypedDict, TypeVar, get_args

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command, RetryPolicy

from saga_kgqa.config.context import SagaContext
from saga_kgqa.graph.answer_check_node import AnswerCheckNode
from saga_kgqa.graph.dependencies import GraphDependencies, SourcesFactory, ToolboxFactory
from saga_kgqa.graph.evidence_node import EvidenceNode
from saga_kgqa.graph.finalize import FinalizeNode
from saga_kgqa.graph.llm_nodes import ModelNodes
from saga_kgqa.graph.model_calls import EnvironmentModelFactory, ModelFactory, transient_provider_error
from saga_kgqa.graph.prompting import prompt_names
from saga_kgqa.graph.routing import (
    ActionRoute,
    CheckRoute,
    LookupRoute,
    route_action,
    route_after_check,
    route_after_lookup,
)
from saga_kgqa.graph.source_tools import SourceToolNodes
from saga_kgqa.graph.tool_nodes import ToolNodes
from saga_kgqa.graph.tracing import AGENT_TAG, RUN_NAME_CHARS, traced_tool_node
from saga_kgqa.state.graph_state import InputState, OutputState, SagaState

#: Supersteps one controller step can take: controller, a tool node, and the prune fallback.
SUPERSTEPS_PER_STEP = 3
#: Supersteps outside the loop (answer type, finalize, evidence) plus slack.
SUPERSTEP_MARGIN = 7

SagaGraph = CompiledStateGraph[SagaState, SagaContext, InputState, OutputState]
RouteT = TypeVar("RouteT", bound=str)


class NodeFunction(Protocol):
    """A node of the SAGA graph: a delta from the state."""

    def __call__(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run the node."""


class RoutedNode(Protocol):
    """A node that says which node runs next (:func:`routed`)."""

    def __call__(self, state: SagaState, runtime: Runtime[SagaContext]) -> Command[Any]:
        """Run the node and its router."""


def routed(node: NodeFunction, router: Callable[[Mapping[str, Any]], RouteT]) -> RoutedNode:
    """``node`` followed by ``router``: the node's delta, and the node the router picks from the state after it.

    The same choice a conditional edge makes, without its read: LangGraph hands an edge's router a
    copy of every channel with the node's writes applied (about 0.2 ms a step on this graph). The
    routers read only channels the last writer overwrites (``pending_action``, ``stop_reason``,
    ``prune_request``), so the state after the delta is the state with the delta's keys replaced.
    """

    def run(state: SagaState, runtime: Runtime[SagaContext]) -> Command[Any]:
        delta = node(state, runtime)
        return Command(update=delta, goto=router({**state, **delta}))

    run.__name__ = getattr(node, "__name__", "node")
    return run


class GraphOptions(TypedDict, total=False):
    """The keywords of :func:`build_graph` besides its factories (a wrapper that fills the factories passes them on)."""

    model_factory: ModelFactory | None
    checkpointer: BaseCheckpointSaver[Any] | None
    model_retry: RetryPolicy | None
    name: str
    output_schema: type[Any]


def build_graph(
    *,
    toolbox_factory: ToolboxFactory,
    sources_factory: SourcesFactory,
    model_factory: ModelFactory | None = None,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    model_retry: RetryPolicy | None = None,
    name: str = "saga",
    output_schema: type[Any] = OutputState,
) -> SagaGraph:
    """Compile the SAGA controller graph over the factories given.

    The tools and the named sources are the caller's to supply: opening graphs is the composition
    root's job, and :func:`saga_kgqa.app.graphs.build_graph` (exported as ``saga_kgqa.build_graph``)
    fills in today's defaults for them.

    Args:
        model_factory: Returns the chat model for ``(context, role)``; roles are
            ``answer_type``, ``controller``, ``prune`` and ``parse``. Without one, the CLI's model
            settings are used (``SAGA_BASE_URL``, ``SAGA_MODEL``, ``SAGA_API_KEY`` / ``OPENAI_API_KEY``,
            ``SAGA_MODEL_FACTORY``; :class:`~saga_kgqa.graph.model_calls.EnvironmentModelFactory`); with
            none of them set, the first model call fails with a
            :class:`~saga_kgqa.errors.ConfigurationError` saying what to set.
        toolbox_factory: Returns the :class:`~saga_kgqa.tools.toolbox.SagaToolbox` for a context.
        sources_factory: Returns the operator's named sources for a context
            (:class:`~saga_kgqa.sources.session.SourceSet`, or ``None``:
            :func:`~saga_kgqa.graph.dependencies.no_sources`); with them (several, or one without a
            declared schema) the controller gets the source tools and AutoSchema's A.3 policy.
        checkpointer: Attach one only in applications (CLI, tests); ``langgraph dev``
            refuses graphs compiled with a checkpointer.
        model_retry: Retry policy of the model-calling nodes; by default three attempts,
            and only for transient provider errors (connection, timeout, rate limit, 5xx).
        name: The graph's name (run name in traces, node name when embedded).
        output_schema: The keys a caller gets back, and the only keys a server's ``updates``
            stream shows (the LangGraph API filters updates by them): :class:`OutputState` by default;
            the served graph adds the chosen action (:data:`saga_kgqa.app.studio.StudioOutput`).

    Returns:
        The compiled graph: input :class:`InputState`, output :class:`OutputState`,
        context :class:`SagaContext`. Invoke it with :func:`run_config`.
    """
    prompt_names()  # a missing prompt file fails here, not in the middle of a run
    dependencies = GraphDependencies(model_factory or EnvironmentModelFactory(), toolbox_factory, sources_factory)
    models = ModelNodes(dependencies)
    tools = ToolNodes(dependencies)
    source_tools = SourceToolNodes(dependencies)
    # Only provider hiccups are retried; a bad request or our own bug fails at once.
    model_retry = model_retry or RetryPolicy(max_attempts=3, initial_interval=1.0, retry_on=transient_provider_error)

    builder = StateGraph(SagaState, input_schema=InputState, output_schema=output_schema, context_schema=SagaContext)
    # One model call predicts the expected answer type (skipped when the prior is off).
    builder.add_node("predict_answer_type", models.predict_answer_type, retry_policy=model_retry)
    # The controller picks one action per step, or ends the loop when the budget is spent.
    builder.add_node(
        "controller",
        routed(models.controller, route_action),
        retry_policy=model_retry,
        destinations=get_args(ActionRoute),
    )
    # Tool nodes: blocking store I/O in sync functions.
    # Each tool call is also its own traced run, "tool:<name>", with the argument as metadata.
    builder.add_node("search", traced_tool_node("search", tools.search))
    builder.add_node(
        "lookup",
        routed(traced_tool_node("lookup", tools.lookup), route_after_lookup),
        destinations=get_args(LookupRoute),
    )
    builder.add_node("examples", traced_tool_node("examples", tools.examples))
    # Worked question-query pairs (offered only when an examples file is configured).
    builder.add_node("worked_examples", traced_tool_node("worked_examples", tools.worked_examples))
    # Ranked MARS patterns, type-filtered like lookup (only when grounding_tools offers them).
    builder.add_node("patterns", traced_tool_node("patterns", tools.patterns))
    builder.add_node("execute", traced_tool_node("execute", tools.execute))
    # Grounding over named sources (offered only when the run has them: source_tools switch).
    source_nodes = {
        "find_sources": source_tools.find_sources,
        "summary": source_tools.summary,
        "resolve": source_tools.resolve,
        "expand": source_tools.expand,
        "bridge": source_tools.bridge,
        "execute_on": source_tools.execute_on,
        "join": source_tools.join,
    }
    for source_tool, source_node in source_nodes.items():
        builder.add_node(source_tool, traced_tool_node(source_tool, source_node))
    # An untyped entity's neighbourhood is pruned by the model (the paper's LLMPrune).
    builder.add_node("prune_fallback", models.prune_fallback, retry_policy=model_retry)
    # Unknown tools, bad arguments and repeated actions are answered without running anything.
    builder.add_node("refuse_action", tools.refuse_action)
    # The final query runs once more without its exploratory LIMIT.
    builder.add_node(
        "check_answer", routed(AnswerCheckNode(dependencies), route_after_check), destinations=get_args(CheckRoute)
    )
    builder.add_node("finalize", FinalizeNode(dependencies))
    # The triples behind each answer row (read after the answer is fixed; it never changes it).
    builder.add_node("evidence", EvidenceNode(dependencies))

    builder.add_edge(START, "predict_answer_type")
    builder.add_edge("predict_answer_type", "controller")
    for node in (
        "search",
        "patterns",
        "examples",
        "worked_examples",
        "execute",
        *source_nodes,
        "prune_fallback",
        "refuse_action",
    ):
        builder.add_edge(node, "controller")
    builder.add_edge("finalize", "evidence")
    builder.add_edge("evidence", END)
    return builder.compile(checkpointer=checkpointer, name=name)


def recursion_limit(max_steps: int) -> int:
    """A recursion limit that the step budget always reaches first (LangGraph's default is 10007)."""
    return SUPERSTEPS_PER_STEP * max_steps + SUPERSTEP_MARGIN


def run_config(
    context: SagaContext, *, thread_id: str | None = None, tags: list[str] | None = None, **metadata: Any
) -> RunnableConfig:
    """The config to invoke the graph with: an explicit recursion limit, and a thread id when checkpointing.

    Args:
        context: The run's context (its ``max_steps`` sets the recursion limit).
        thread_id: The checkpoint thread, when the graph has a checkpointer.
        tags: Tags for traces.
        **metadata: Metadata for traces.
    """
    config: RunnableConfig = {"recursion_limit": recursion_limit(context.max_steps)}
    if thread_id is not None:
        config["configurable"] = {"thread_id": thread_id}
    if tags:
        config["tags"] = list(tags)
    if metadata:
        config["metadata"] = dict(metadata)
    return config


def question_run_config(
    question: str,
    *,
    thread_id: str | None = None,
    graph: str | None = None,
    model: str | None = None,
    model_name: str | None = None,
    tags: tuple[str, ...] = (),
    metadata: Mapping[str, Any] | None = None,
    recursion_limit: int | None = None,
) -> RunnableConfig:
    """The config of one question's run: a readable name, tags and metadata.

    Args:
        question: The question; its start names the run.
        thread_id: Checkpointer thread, when the run is durable.
        graph: The knowledge graph (endpoint URL or data), recorded as metadata.
        model: The model (name and server), recorded as metadata only: a tag with the server's
            URL would split one model's traces whenever the server moves.
        model_name: The model's name, the ``model:<name>`` tag.
        tags: More tags (benchmark name, ablation, ...).
        metadata: More metadata.
        recursion_limit: LangGraph's recursion limit for the run.
    """
    short = " ".join(question.split())
    if len(short) > RUN_NAME_CHARS:
        short = short[: RUN_NAME_CHARS - 1] + "…"
    run_metadata: dict[str, Any] = {"question": question}
    if graph is not None:
        run_metadata["knowledge_graph"] = graph
    if model is not None:
        run_metadata["model"] = model
    run_metadata.update(metadata or {})
    config: RunnableConfig = {
        "run_name": f"saga: {short}",
        "tags": [AGENT_TAG, *([f"model:{model_name}"] if model_name else []), *tags],
        "metadata": run_metadata,
    }
    if thread_id is not None:
        config["configurable"] = {"thread_id": thread_id}
    if recursion_limit is not None:
        config["recursion_limit"] = recursion_limit
    return config

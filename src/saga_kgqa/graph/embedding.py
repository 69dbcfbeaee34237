"""Embedding the SAGA graph in a larger LangGraph agent.

There are two ways, both tested in ``tests/integration/graph/test_subgraph_embedding.py``:

1. **Shared keys.** When the parent state has a ``question`` key (and wants some of
   ``final_sparql``, ``answer``, ``status``, ``summary``, ``attempts``), add the compiled
   graph itself as a node: ``parent.add_node("saga", build_graph(...))``. The graph's input
   and output schemas keep its working memory (Θ, history, knowledge log) out of the
   parent's state.
2. **A different state.** Otherwise wrap it with :func:`saga_node`, which maps the
   parent's state to the SAGA input and the SAGA output back to a parent delta. The
   run happens inside the parent's node, so it shares the parent's checkpointer (under
   its own namespace), callbacks and tracing, and ``stream(..., subgraphs=True)``
   shows its steps.

Either way the parent passes the SAGA switches as a :class:`SagaContext`: a parent with a
context of its own cannot hand it through, so :func:`saga_node` takes one explicitly.

Example, a chat agent whose state is a list of messages::

    def ask(state: ChatState) -> InputState:
        return {"question": str(state["messages"][-1].content)}

    def reply(output: OutputState) -> dict[str, Any]:
        return {"messages": [AIMessage(output.get("final_sparql") or "no query")]}

    chat = StateGraph(ChatState)
    chat.add_node("saga", saga_node(build_graph(model_factory=...), to_input=ask, to_parent=reply))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from langchain_core.runnables import RunnableConfig

from saga_kgqa.config.context import SagaContext
from saga_kgqa.graph.builder import SagaGraph, recursion_limit
from saga_kgqa.state.graph_state import InputState, OutputState

ParentStateT = TypeVar("ParentStateT")


def saga_node(
    saga: SagaGraph,
    *,
    to_input: Callable[[ParentStateT], InputState],
    to_parent: Callable[[OutputState], Mapping[str, Any]],
    context: SagaContext | None = None,
) -> Callable[[ParentStateT, RunnableConfig], dict[str, Any]]:
    """Wrap the compiled SAGA graph as a node of a parent graph with a different state.

    Args:
        saga: The compiled graph (from :func:`~saga_kgqa.graph.builder.build_graph`, no checkpointer:
            it inherits the parent's).
        to_input: Maps the parent's state to the SAGA input (``question``, optional ``conversation``).
        to_parent: Maps the SAGA output to the parent's state delta.
        context: The SAGA switches (``SagaContext.from_env()`` when ``None``).

    Returns:
        A node function for ``parent.add_node(name, node)``.
    """
    run_context = context if context is not None else SagaContext.from_env()
    limit = recursion_limit(run_context.max_steps)

    def node(state: ParentStateT, config: RunnableConfig) -> dict[str, Any]:
        # The parent's recursion limit counts the parent's steps; SAGA needs its own.
        child_config: RunnableConfig = {**config, "recursion_limit": limit}
        # invoke() returns the output schema's keys as a plain dict.
        output = cast(OutputState, saga.invoke(to_input(state), child_config, context=run_context))
        return dict(to_parent(output))

    return node

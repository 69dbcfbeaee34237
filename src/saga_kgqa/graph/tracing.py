"""LangSmith run names, tags and metadata for each tool call.

A question's own run is named beside the graph it configures (:func:`saga_kgqa.graph.builder.question_run_config`).

LangGraph, its nodes and ChatOpenAI are traced by LangSmith automatically once
``LANGSMITH_TRACING=true`` and ``LANGSMITH_API_KEY`` are set (``LANGSMITH_PROJECT`` and
``LANGSMITH_ENDPOINT`` are optional); with tracing off nothing is sent. These helpers
only name what is traced, so a run reads "saga: <question>" with one ``tool:<name>``
child per tool call, filterable by the tags and metadata below. The same names reach
any LangChain callback handler, which is how the tests check them without a network.

Beware ``LANGCHAIN_TRACING_V2``: LangSmith reads it before ``LANGSMITH_TRACING``, so
``LANGCHAIN_TRACING_V2=true`` turns tracing on whatever ``LANGSMITH_TRACING`` says.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import (
    ensure_config,
    get_callback_manager_for_config,
    patch_config,
    set_config_context,
)
from langgraph.runtime import Runtime
from langsmith import utils as langsmith_utils

from saga_kgqa.config.context import SagaContext
from saga_kgqa.state.graph_state import SagaState

#: Tag on every run of the agent, to filter a LangSmith project.
AGENT_TAG = "saga-kgqa"
#: Tag on every tool-call run.
TOOL_TAG = "saga-tool"
#: Characters of a question kept in a run name.
RUN_NAME_CHARS = 80

ResultT = TypeVar("ResultT")


def tracing_enabled() -> bool:
    """Whether LangSmith tracing is on for this process (environment or ``tracing_context``)."""
    return bool(langsmith_utils.tracing_is_enabled())


def tool_call_config(tool: str, arguments: Mapping[str, Any], *, step: int | None = None) -> RunnableConfig:
    """The config of one tool call's run: ``tool:<name>``, tagged, with its arguments also as metadata."""
    metadata: dict[str, Any] = {"tool": tool, "tool_arguments": dict(arguments)}
    if step is not None:
        metadata["step"] = step
    return {"run_name": f"tool:{tool}", "tags": [TOOL_TAG, f"tool:{tool}"], "metadata": metadata}


def traced_tool_call(
    tool: str,
    arguments: Mapping[str, Any],
    call: Callable[[], ResultT],
    *,
    step: int | None = None,
) -> ResultT:
    """Run ``call`` as its own traced tool run (``run_type="tool"``), a child of the node that makes it.

    The run's inputs are the tool's arguments, as LangSmith shows a tool call. Inside a
    graph node the parent run is found through context variables, so the tool run nests
    under the node; runs ``call`` starts nest under the tool run. With tracing off and no
    callbacks the call just runs (no tool run is started that nobody would see).

    Args:
        tool: Tool name (``search``, ``lookup``, ``execute``, ...).
        arguments: The tool's arguments: the run's inputs, and metadata.
        call: Runs the tool; its exceptions propagate unchanged.
        step: Controller step, recorded as metadata.
    """
    config = ensure_config(tool_call_config(tool, arguments, step=step))
    manager = get_callback_manager_for_config(config)
    if not manager.handlers:
        # No handler would see the tool run (tracing off, no callbacks): its events cost about 0.1 ms a call.
        return call()
    inputs = dict(arguments)
    run = manager.on_tool_start(
        {"name": f"tool:{tool}"}, json.dumps(inputs, default=str), name=f"tool:{tool}", inputs=inputs
    )
    try:
        with set_config_context(patch_config(config, callbacks=run.get_child())) as context:
            result = context.run(call)
    except BaseException as exc:
        run.on_tool_error(exc)
        raise
    run.on_tool_end(result)
    return result


class ToolNodeFunction(Protocol):
    """A tool node of the SAGA graph."""

    def __call__(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run the node."""


def traced_tool_node(tool: str, node: ToolNodeFunction) -> ToolNodeFunction:
    """Wrap a tool node so each call is its own ``tool:<name>`` run with the action's argument.

    Args:
        tool: The tool's name.
        node: The node; it reads the pending action from the state.
    """

    def traced(state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        arguments = {"argument": getattr(state.get("pending_action"), "argument", "")}
        return traced_tool_call(tool, arguments, lambda: node(state, runtime), step=state.get("steps"))

    return traced

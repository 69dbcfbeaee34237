"""Running the MARS graph in tests: a real toolbox, a scripted model, the full state read back."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.checkpoint.memory import InMemorySaver

from saga_kgqa.config.context import SagaContext
from saga_kgqa.graph.builder import run_config
from saga_kgqa.mars.builder import MarsGraph, build_mars_graph
from saga_kgqa.state.checkpointing import checkpoint_serde
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.scripted_model import ScriptedChatModel, ScriptItem, model_factory

_THREADS = itertools.count(1)


@dataclass
class MarsRun:
    """One run: its output, its final state, the scripted model, the graph."""

    output: dict[str, Any]
    state: dict[str, Any]
    model: ScriptedChatModel
    graph: MarsGraph


def run_mars(toolbox: SagaToolbox, script: Iterable[ScriptItem], *, question: str, **switches: Any) -> MarsRun:
    """Run the MARS graph once with a scripted model (checkpointed in memory, so the state can be read)."""
    model = ScriptedChatModel(script)
    graph = build_mars_graph(
        model_factory=model_factory(model),
        toolbox_factory=lambda _ctx: toolbox,
        checkpointer=InMemorySaver(serde=checkpoint_serde()),
    )
    context = SagaContext(**switches)
    config = dict(run_config(context, thread_id=f"mars-{next(_THREADS)}"))
    output = graph.invoke({"question": question}, context=context, config=config)  # type: ignore[arg-type]
    state = dict(graph.get_state(config).values)  # type: ignore[arg-type]
    return MarsRun(output=dict(output), state=state, model=model, graph=graph)


def expand_pattern(property_id: str, direction: str = "out") -> Any:
    """A reasoner reply that expands the first shown pattern with this property id (read off the prompt)."""

    def reply(messages: list[BaseMessage]) -> str:
        return f"EXPAND: {pattern_number(str(messages[-1].content), property_id, direction)}"

    return reply


def pattern_number(prompt: str, property_id: str, direction: str = "out") -> int:
    """The number of the first pattern line showing ``property_id`` in the given direction."""
    for line in prompt.splitlines():
        match = re.match(r"\[(\d+)\] (.*)", line)
        outgoing = match is not None and not match.group(2).startswith("?subject")
        if match and f"({property_id})" in match.group(2) and (direction == "out") == outgoing:
            return int(match.group(1))
    raise AssertionError(f"no {direction} pattern with {property_id} in the prompt:\n{prompt}")

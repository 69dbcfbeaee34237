"""Running the agent graph in tests: real toolboxes over shared-data graphs, a scripted model, full state."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from saga_kgqa.app.graphs import build_graph
from saga_kgqa.config.context import SagaContext
from saga_kgqa.graph.builder import SagaGraph, run_config
from saga_kgqa.kg.embedded.declared_prefixes import read_declared_prefixes
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import build_schema_index
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.state.checkpointing import checkpoint_serde
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.scripted_model import ScriptedChatModel, ScriptItem, model_factory

_THREADS = itertools.count(1)


def open_toolbox(paths: list[Path]) -> SagaToolbox:
    """A toolbox over RDF files loaded into an embedded store (close ``toolbox.graph`` when done)."""
    store = EmbeddedStore.from_files(paths)
    schema = build_schema_index(store, induce=True)
    return SagaToolbox(KnowledgeGraph(store), schema, prefixes=read_declared_prefixes(paths))


@dataclass
class AgentRun:
    """One run: its output, its final internal state, the scripted model and the graph."""

    output: dict[str, Any]
    state: dict[str, Any]
    model: ScriptedChatModel
    graph: SagaGraph
    config: dict[str, Any]


def run_agent(
    toolbox: SagaToolbox,
    script: Iterable[ScriptItem],
    *,
    question: str,
    conversation: list[Any] | None = None,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    sources: SourceSet | None = None,
    **switches: Any,
) -> AgentRun:
    """Run the graph once with a scripted model; the state is read back from an in-memory checkpointer.

    ``sources`` are the operator's named sources the run may ground over (none by default,
    whatever catalog file the environment names).
    """
    model = ScriptedChatModel(script)
    saver = checkpointer or InMemorySaver(serde=checkpoint_serde())
    graph = build_graph(
        model_factory=model_factory(model),
        toolbox_factory=lambda _ctx: toolbox,
        sources_factory=lambda _ctx: sources,
        checkpointer=saver,
    )
    context = SagaContext(**switches)
    config = dict(run_config(context, thread_id=f"test-{next(_THREADS)}"))
    payload: dict[str, Any] = {"question": question}
    if conversation:
        payload["conversation"] = conversation
    output = graph.invoke(payload, context=context, config=config)  # type: ignore[arg-type]
    state = dict(graph.get_state(config).values)  # type: ignore[arg-type]
    return AgentRun(output=dict(output), state=state, model=model, graph=graph, config=config)

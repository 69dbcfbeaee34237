"""One loop that streams a run of the graph to its observers (CLI view and trace, web page, MCP, eval answerer).

Every face that runs the agent streams the graph's ``updates`` the same way: each node's delta, in
order, goes to each observer; after each superstep the caller may stop the run (a cancel, a
deadline, a spent budget); however the loop ends, the stream is closed, which stops the graph at its
last checkpoint. What a face does with an update (draw it, log it, count it) is its observer's; what
it does with an error is its own (the loop lets every exception through).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from langchain_core.runnables import RunnableConfig
from langgraph.types import Command, Durability

from saga_kgqa.config.context import SagaContext
from saga_kgqa.graph.builder import SagaGraph
from saga_kgqa.state.graph_state import InputState

#: When a face's run writes its checkpoints (``Run.stream``'s default; ``bench/agent_overhead.py`` measures it).
#: ``sync``: each step waits for its checkpoint. ``async`` (LangGraph's default) writes it while the next
#: step runs and saves 0.1-0.3 ms of CPU and a thread hand-off a step, but a process killed outright
#: then often leaves a step's writes saved without the checkpoint after them (killed as the next model
#: call started, 4 kills in 8 in a test). LangGraph resumes that state and the faces now do too
#: (``runs.final_state.run_finished``, faults E8), but the saved state then lags the steps shown; under
#: ``sync`` it needs a kill in the moment between a step's writes and its checkpoint.
RUN_DURABILITY: Durability = "sync"


class RunObserver(Protocol):
    """Sees every node's delta of a run, in order."""

    def update(self, node: str, delta: Any) -> None:
        """Take the delta ``node`` returned (a dict, or ``None`` for a node that changed nothing)."""


def _never() -> bool:
    return False


def stream_run(
    graph: SagaGraph,
    inputs: InputState | Command[Any] | None,
    config: RunnableConfig,
    context: SagaContext,
    observers: Sequence[RunObserver],
    *,
    stop: Callable[[], bool] = _never,
    durability: Durability | None = None,
) -> bool:
    """Run (``inputs`` given) or resume (``None``, or a ``Command(resume=...)``) a thread, handing each update on.

    Args:
        graph: The compiled graph (SAGA's, or MARS's with the same schemas).
        inputs: The question, or ``None`` to resume the thread named in ``config``.
        config: The run's config (:func:`saga_kgqa.graph.builder.run_config`).
        context: The run's context.
        observers: Told of every node's delta, in order.
        stop: Asked after each superstep; ``True`` ends the run there.
        durability: When checkpoints are written (``sync`` where a run must be resumable from
            its last step); the graph's default when ``None``.

    Returns:
        Whether ``stop`` ended the run before the graph did.
    """
    if durability is None:  # the graph's own default, asked for as before (no durability keyword at all)
        updates = graph.stream(inputs, config, context=context, stream_mode="updates")
    else:
        updates = graph.stream(inputs, config, context=context, stream_mode="updates", durability=durability)
    try:
        for chunk in updates:
            for node, delta in chunk.items():
                for observer in observers:
                    observer.update(node, delta)
            if stop():
                return True
        return False
    finally:
        # A generator at run time (typed as an iterator): closing it stops the graph now.
        close = getattr(updates, "close", None)
        if callable(close):
            close()

"""What a run's output state says about its answer's columns and its steps, read the same way by every face.

``finalize`` writes the answer (:class:`~saga_kgqa.state.records.Answer`) and the controller counts
its steps in the state; ``saga ask --json`` prints both (``answer.variables``, ``summary.steps``), the
LangGraph output carries them, and MCP ``kg_ask`` and the web page's final event read them here
instead of counting on their own (MCP counted tool nodes, and took the columns from re-reading the
rows, which it does only for an answer: an empty run's ``?mission`` column went missing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.types import StateSnapshot

from saga_kgqa.state.records import Answer


def answer_columns(values: Mapping[str, Any]) -> list[str]:
    """The columns the run's final query selects, whatever its row count (``[]``: no query ran, or ASK).

    The state from a LangGraph host may hold the answer as JSON; both forms are read.
    """
    answer = values.get("answer")
    if isinstance(answer, Answer):
        return list(answer.variables)
    if isinstance(answer, Mapping):
        return [str(name) for name in answer.get("variables") or ()]
    return []


def steps_taken(values: Mapping[str, Any]) -> int:
    """The controller steps the run took (resumed parts included): the count ``saga ask`` shows."""
    steps = values.get("steps")
    return steps if isinstance(steps, int) and steps >= 0 else 0


def run_finished(snapshot: StateSnapshot) -> bool:
    """Whether the thread has nothing left to run (or never started): what "already finished" means on every face.

    ``snapshot.next`` alone is not it: it leaves out a step whose writes were saved while the checkpoint
    after them was not (a process killed in between), yet LangGraph resumes that step from its writes;
    such a step is still among ``snapshot.tasks``.
    """
    return not snapshot.next and not snapshot.tasks

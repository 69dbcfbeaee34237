"""An interrupted run's question to its caller, as every face reads it, and how each face answers it.

The ``search`` node pauses a run with LangGraph's ``interrupt()`` when a name is ambiguous
(:mod:`saga_kgqa.graph.clarify`). A face reads the waiting question from the thread's state
(:func:`pending_clarification`), reports the run as ``needs_clarification`` with the candidates
(:func:`clarification_values`), and, once someone chose, resumes the thread with
``Command(resume=...)`` (:func:`resume_with`).
"""

from __future__ import annotations

from typing import Any

from langgraph.types import Command

from saga_kgqa.graph.clarify import Clarification
from saga_kgqa.state.outcome import derive_outcome


def pending_clarification(snapshot: Any) -> Clarification | None:
    """The question a thread waits on (from ``graph.get_state(config)``), or ``None``."""
    for waiting in getattr(snapshot, "interrupts", ()) or ():
        value = getattr(waiting, "value", None)
        if isinstance(value, dict) and value.get("kind") == "clarify":
            return Clarification.model_validate(value)
    return None


def clarification_values(values: dict[str, Any], asked: Clarification) -> dict[str, Any]:
    """The thread's values as a face reports them while it waits: ``needs_clarification``, with the question."""
    outcome = derive_outcome("", None, clarification=True)
    return {**values, "status": outcome.status, "outcome": outcome, "clarification": asked}


def resume_with(asked: Clarification, choice: str) -> Command[Any]:
    """The command that resumes the thread with ``choice`` (a candidate's id or IRI, or its 1-based number)."""
    return Command(resume=asked.resume(choice))

"""Small builders for the records tool nodes return: steps, knowledge-log lines, discovered types."""

from __future__ import annotations

from collections.abc import Mapping

from saga_kgqa.state import ANSWER_KEY, Action, KnowledgeEntry, Outcome, Step, TypeState
from saga_kgqa.tools.render import compact_iri

#: At most this many "type discovered" lines per step, so one wide result cannot flood the log.
MAX_TYPE_LINES = 3


def step_record(step: int, action: Action, observation: str, outcome: Outcome, *, thought: str | None = None) -> Step:
    """The history entry of one action."""
    return Step(
        step=step,
        tool=action.tool,
        argument=action.argument,
        observation=observation,
        outcome=outcome,
        thought=action.thought if thought is None else thought,
    )


def knowledge(step: int, outcome: Outcome, summary: str) -> KnowledgeEntry:
    """One knowledge-log line (the summary is cut to one short line)."""
    line = " ".join(summary.split())
    return KnowledgeEntry(step=step, outcome=outcome, summary=line[:240])


def discovered_types(
    before: TypeState | None, delta: TypeState, step: int, prefixes: Mapping[str, str]
) -> list[KnowledgeEntry]:
    """``[info]`` lines for types ``delta`` adds to keys that did not have them."""
    entries: list[KnowledgeEntry] = []
    for key in delta.tracked():
        if key == ANSWER_KEY:
            continue
        known = before.types_of(key) if before is not None else frozenset()
        new = sorted(compact_iri(t, prefixes) for t in delta.types_of(key) - known)
        if not new:
            continue
        subject = key if key.startswith("?") else compact_iri(key, prefixes)
        entries.append(knowledge(step, "info", f"{subject} has type {', '.join(new[:4])}"))
        if len(entries) == MAX_TYPE_LINES:
            break
    return entries

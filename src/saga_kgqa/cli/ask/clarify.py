"""``saga ask`` asking back: the candidates on a terminal, a choice read from it, or how to answer later."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console

from saga_kgqa.cli.output import stderr
from saga_kgqa.graph.clarify import Clarification


def candidate_lines(asked: Clarification) -> list[str]:
    """One numbered line per candidate: label, id, type and its distinguishing fact."""
    lines = []
    for number, candidate in enumerate(asked.candidates, start=1):
        kind = f", {candidate.type}" if candidate.type else ""
        fact = f": {candidate.fact}" if candidate.fact and candidate.fact != f"a {candidate.type}" else ""
        lines.append(f"  {number}. {candidate.label} ({candidate.id}{kind}){fact}")
    return lines


def terminal_chooser(asked: Clarification) -> str | None:
    """Ask the person at the terminal which candidate is meant (a number, an id, or empty to stop)."""
    if asked.refused:
        stderr.print(f"not taken: {asked.refused}", markup=False, highlight=False, style="yellow")
    stderr.print(f"Which {asked.mention!r} do you mean?", markup=False, highlight=False)
    for line in candidate_lines(asked):
        stderr.print(line, markup=False, highlight=False)
    answer = stderr.input(f"choose 1-{len(asked.candidates)} (empty: stop here): ").strip()
    return answer or None


def print_clarification(console: Console, asked: Mapping[str, Any] | Clarification, thread_id: str) -> None:
    """The question the run waits on, and the command that answers it."""
    clarification = asked if isinstance(asked, Clarification) else Clarification.model_validate(dict(asked))
    console.print(f"Which {clarification.mention!r} do you mean?", markup=False, highlight=False)
    for line in candidate_lines(clarification):
        console.print(line, markup=False, highlight=False)
    console.print(f"answer with: saga ask --resume {thread_id} --choice N", markup=False, highlight=False)

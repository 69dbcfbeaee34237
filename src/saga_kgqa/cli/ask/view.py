"""What ``saga ask`` shows: a live line per step while the graph streams, then the answer.

The live view goes to stderr (a spinner names the node at work, and one line per node
update stays on screen), so stdout holds only the answer or, with ``--json``, one JSON
document. Node updates are the graph's state deltas, read defensively: a node that
wrote nothing the view knows is shown by name only.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.status import Status
from rich.table import Table

from saga_kgqa.runs.answer_view import TermView, cell_text
from saga_kgqa.runs.trajectory import jsonable
from saga_kgqa.state.evidence import evidence_line
from saga_kgqa.state.outcome import RunOutcome, counts_text, outcome_of

#: Characters of a tool argument or observation line shown per step.
SHOWN_CHARS = 110

_NEXT_NODE = {
    "predict_answer_type": "choosing the next action",
    "controller": "running the tool",
    "finalize": "done",
}


def _clip(text: str, limit: int = SHOWN_CHARS) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def describe_update(node: str, delta: Mapping[str, Any] | None) -> list[str]:
    """Human lines for one node's state delta (plain text, no markup)."""
    data: dict[str, Any] = jsonable(dict(delta or {}))
    if node == "predict_answer_type":
        found = data.get("answer_type")
        if not found:
            return ["answer type: none (prior off or not understood)"]
        type_id = f" ({found['type_id']})" if found.get("type_id") else ""
        return [f"answer type: {found.get('label', '?')}{type_id}"]
    if node == "controller":
        action = data.get("pending_action")
        if not action:
            return [f"controller: {data.get('stop_reason', 'no action')} → finalize"]
        argument = f"({_clip(action.get('argument', ''), 80)})" if action.get("argument") else "()"
        lines = [f"{action.get('tool', '?')}{argument}"]
        if action.get("thought"):
            lines.append(f"  thought: {_clip(action['thought'])}")
        return lines
    if node == "finalize":
        return [f"finalize: {data.get('status', '?')}"]
    if node == "retrieve":  # MARS: the patterns shown this hop
        return [f"patterns: {len(data.get('patterns') or [])} shown"]
    if node == "reason" and data.get("candidate_sparql"):
        return [f"sparql({_clip(data['candidate_sparql'], 80)})"]
    history = data.get("history") or []
    if history:
        step = history[-1]
        first_line = next((line for line in str(step.get("observation", "")).splitlines() if line.strip()), "")
        return [f"  → {step.get('outcome', '?')}: {_clip(first_line)}"]
    if node == "prune_fallback":
        return ["  → neighbourhood pruned by the model"]
    return [f"  → {node}"]


class StepView:
    """The live view: a spinner plus one printed line per node update (use as a context manager)."""

    def __init__(self, console: Console, *, enabled: bool = True, steps_before: int = 0) -> None:
        """Show on ``console`` when ``enabled``.

        Args:
            console: Where the view is printed.
            enabled: Show anything at all.
            steps_before: Controller steps the thread already took (a resumed run), so its
                steps keep the run's numbering instead of starting again at 1.
        """
        self.console = console
        self.enabled = enabled
        self._status: Status | None = None
        self._step = steps_before

    def __enter__(self) -> StepView:
        if self.enabled:
            self._status = self.console.status("predicting the answer type", spinner="dots")
            self._status.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._status is not None:
            self._status.stop()

    def note(self, text: str) -> None:
        """Print a line that is not a node update (thread id, resume notice)."""
        if self.enabled:
            self.console.print(text, markup=False, highlight=False, style="dim")

    def update(self, node: str, delta: Any) -> None:
        """Show one node's update (a delta that is not a mapping shows as no change)."""
        if not self.enabled:
            return
        delta = delta if isinstance(delta, Mapping) else None
        lines = describe_update(node, delta)
        if node == "controller" and (delta or {}).get("pending_action") is not None:
            self._step += 1
            lines[0] = f"step {self._step}: {lines[0]}"
        for line in lines:
            self.console.print(line, markup=False, highlight=False)
        if self._status is not None:
            self._status.update(_NEXT_NODE.get(node, "thinking"))


def print_outcome(console: Console, values: Mapping[str, Any], views: Mapping[str, TermView] | None = None) -> None:
    """Print the final query and the answer (rows as a table, or the ASK boolean).

    Each IRI with a view is shown as ``Label (short)``; cells wrap (never cut) to fit the console's width.
    """
    data: dict[str, Any] = jsonable(dict(values))
    sparql = data.get("final_sparql")
    answer = data.get("answer") or {}
    console.print(sparql or "(no query)", markup=False, highlight=False)
    if answer.get("boolean") is not None:
        console.print("true" if answer["boolean"] else "false", markup=False, highlight=False)
    elif answer.get("variables"):
        table = Table(highlight=False, expand=False)
        for name in answer["variables"]:
            table.add_column(name, overflow="fold")
        for row in answer.get("rows", []):
            table.add_row(*(cell_text(row.get(name, ""), views or {}) for name in answer["variables"]))
        console.print(table)
    summary = data.get("summary") or {}
    outcome = outcome_of(values)
    console.print(
        f"{outcome.status}: {counts_text(outcome.rows)}, {summary.get('steps', 0)} step(s), "
        f"{summary.get('llm_calls', 0)} model call(s)",
        markup=False,
        highlight=False,
        style="dim",
    )
    for line in outcome_lines(outcome):
        console.print(line, markup=False, highlight=False, style="dim")
    evidence_line = evidence_summary(data.get("evidence"))
    if evidence_line:
        console.print(evidence_line, markup=False, highlight=False, style="dim")
    if summary.get("dropped_columns"):
        # The answer-shape rule changed the query: say so, and where the model's own query is.
        console.print(
            f"answer shape: dropped {', '.join(summary['dropped_columns'])} (labels of returned entities); "
            "the model's query is summary.unshaped_sparql in --json",
            markup=False,
            highlight=False,
            style="dim",
        )


def outcome_lines(outcome: RunOutcome) -> list[str]:
    """The outcome's reason, why it is empty, and an earlier result that is not the answer, one line each."""
    lines = [outcome.message] if outcome.message and outcome.status != "answered" else []
    if outcome.diagnosis:
        lines.append(f"why it is empty: {outcome.diagnosis}")
    if outcome.earlier is not None:
        lines.append(
            f"an earlier result, not the answer: step {outcome.earlier.step} returned "
            f"{outcome.earlier.row_count} row(s) (see attempts in --json)"
        )
    return lines


def evidence_summary(evidence: Mapping[str, Any] | None) -> str:
    """One line on the answer's evidence: rows supported, deprecated statements, and where the triples are."""
    if not evidence:
        return ""
    return evidence_line(evidence) + "; the triples are under evidence in --json"

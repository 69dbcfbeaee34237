"""The events the web page shows, made from the graph's streamed updates or from a checkpointed state.

One code path for both: a live run turns each node's update into events as it streams;
a reopened run turns its checkpointed values into the same events, in the same order.
Outside text (observations, labels) travels as data; the page sets it as text, never as HTML.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from saga_kgqa.graph.clarify import Clarification
from saga_kgqa.runs.final_state import answer_columns
from saga_kgqa.state import ANSWER_KEY, AnswerType, Step, TypeState
from saga_kgqa.state.evidence import Evidence
from saga_kgqa.state.outcome import counts_text, outcome_of
from saga_kgqa.state.records import Answer
from saga_kgqa.state.type_state import merge_type_state
from saga_kgqa.text_safety import clean_structure

Event = dict[str, Any]
#: How an answer's IRIs are shown: ``{iri: {"label", "short"}}`` (see :mod:`saga_kgqa.runs.answer_view`).
Labeller = Callable[[Answer], dict[str, dict[str, Any]]]
#: Θ entries shown per event (the newest first), so a long run's page stays small.
MAX_THETA_ENTRIES = 40


def compact(iri: str, prefixes: Mapping[str, str]) -> str:
    """``prefix:local`` for an IRI under a known namespace, else the IRI."""
    for prefix, namespace in prefixes.items():
        if namespace and iri.startswith(namespace) and len(iri) > len(namespace):
            return f"{prefix}:{iri[len(namespace) :]}"
    return iri


def step_event(step: Step) -> Event:
    """A tool call and its observation."""
    cleaned: Event = clean_structure(
        {
            "kind": "step",
            "step": step.step,
            "tool": step.tool,
            "argument": step.argument,
            "outcome": step.outcome,
            "thought": step.thought,
            "observation": step.observation,
        }
    )
    return cleaned


def theta_event(theta: TypeState, prefixes: Mapping[str, str]) -> Event:
    """Θ as it stands: each tracked resource or variable with its types."""
    entries = [
        {"key": compact(key, prefixes), "types": sorted(compact(t, prefixes) for t in types)}
        for key, types in theta.recent(MAX_THETA_ENTRIES)
    ]
    # The answer prior is shown as the expected answer type, not among the tracked resources.
    size = sum(1 for key in theta.tracked() if key != ANSWER_KEY)
    cleaned: Event = clean_structure({"kind": "theta", "size": size, "entries": entries})
    return cleaned


def final_event(values: Mapping[str, Any], labeller: Labeller | None = None) -> Event:
    """The run's outcome, the final query and the answer table (each IRI's label and short name in ``views``).

    The outcome and its counts are the run's own (:func:`~saga_kgqa.state.outcome.outcome_of`);
    rows are listed only when they are the answer (``answered`` or ``partial``).
    """
    answer = values.get("answer")
    outcome = outcome_of(values)
    event: Event = {
        "kind": "final",
        "status": outcome.status,
        "outcome": outcome.model_dump(mode="json"),
        "sparql": values.get("final_sparql"),
        # The answer's columns, as every face reads them from the run's state (an empty answer has them too).
        "variables": answer_columns(values),
        "rows": [],
        "boolean": None,
        "views": {},
        "counts": "",
    }
    if isinstance(answer, Answer) and outcome.is_answer:
        event |= {"rows": list(answer.rows), "boolean": answer.boolean}
        if labeller is not None:
            event["views"] = labeller(answer)
    if event["boolean"] is None:
        event["counts"] = counts_text(outcome.rows, len(event["rows"]))
    # The page sets text, never HTML; bidi overrides and zero-width characters would still reorder a label.
    cleaned: Event = clean_structure(event)
    return cleaned


def clarify_event(thread_id: str, asked: Clarification) -> Event:
    """The run asks back: the mention and its candidates, for the page to offer as a choice."""
    data = asked.model_dump(mode="json")
    data.pop("token", None)  # the server answers with the run's own token; the page only names the choice
    cleaned: Event = clean_structure(
        {**data, "kind": "clarify", "thread_id": thread_id, "status": "needs_clarification"}
    )
    return cleaned


def evidence_event(evidence: Evidence) -> Event:
    """The triples behind each answer row (and the statements behind them), for the page's per-row expanders."""
    cleaned: Event = clean_structure({"kind": "evidence", **evidence.model_dump(mode="json")})
    return cleaned


_NEXT = {"predict_answer_type": "choosing the first action", "controller": "running the chosen tool"}


def progress_event(node: str, delta: Any, steps: int, max_steps: int) -> Event:
    """Where the run stands: the node that just finished, steps taken of the budget, and what happens next."""
    action = delta.get("pending_action") if isinstance(delta, Mapping) else None
    doing = _NEXT.get(node, "choosing the next action")
    if action is not None and getattr(action, "tool", None):
        doing = f"running {action.tool}"
    return {"kind": "progress", "node": node, "steps": steps, "max_steps": max_steps, "doing": doing}


class EventMaker:
    """Turns streamed node updates into page events, keeping Θ as the reducer would."""

    def __init__(self, prefixes: Mapping[str, str], labeller: Labeller | None = None) -> None:
        """Start with an empty Θ; label the final answer's IRIs with ``labeller``."""
        self.prefixes = prefixes
        self.labeller = labeller
        self.theta = TypeState()

    def update(self, node: str, delta: Any) -> list[Event]:
        """The events of one node's update."""
        if not isinstance(delta, Mapping):
            return []
        events = _answer_type_and_steps(delta)
        theta = delta.get("theta")
        if isinstance(theta, TypeState) and theta.entries:
            self.theta = merge_type_state(self.theta, theta)
            events.append(theta_event(self.theta, self.prefixes))
        if node == "finalize":
            events.append(final_event(delta, self.labeller))
        if node == "evidence" and isinstance(delta.get("evidence"), Evidence):
            events.append(evidence_event(delta["evidence"]))
        return events


def events_from_state(
    values: Mapping[str, Any], prefixes: Mapping[str, str], labeller: Labeller | None = None
) -> list[Event]:
    """The events of a checkpointed run, from its saved state."""
    events = _answer_type_and_steps(values)
    theta = values.get("theta")
    if isinstance(theta, TypeState) and theta.entries:
        events.append(theta_event(theta, prefixes))
    if "status" in values:
        events.append(final_event(values, labeller))
    if isinstance(values.get("evidence"), Evidence):
        events.append(evidence_event(values["evidence"]))
    return events


def _answer_type_and_steps(values: Mapping[str, Any]) -> list[Event]:
    """The events of an update's (or a saved state's) predicted answer type and steps."""
    events: list[Event] = []
    answer_type = values.get("answer_type")
    if isinstance(answer_type, AnswerType):
        events.append({"kind": "answer_type", "label": answer_type.label, "type_id": answer_type.type_id})
    events += [step_event(step) for step in values.get("history") or [] if isinstance(step, Step)]
    return events

"""Asking back: when a searched name leaves several entities within a margin, the run asks which one is meant.

The ``search`` node calls :func:`ask_which` after each search. With ``clarify="ask"`` (the
default; benchmarks use ``"never"``), two or more entity hits that match the name equally well
(the best score minus ``clarify_margin`` or better, matched the same way) make the node call
LangGraph's :func:`~langgraph.types.interrupt` with a :class:`Clarification` payload: the mention,
and each candidate's id, label, type and one distinguishing fact (its description, else its type).
The caller resumes with ``Command(resume={"token": ..., "choice": ...})``: the token must be the
payload's (a stale token from an earlier question, or one from another thread, is refused), and
the choice one candidate's id or IRI (anything else is refused). A refused resume asks again, with
the reason in ``refused``; the node is re-run from its start on each resume (LangGraph's rule), so
the search is repeated and the token, derived from the thread, step, mention and candidates, is
the same. The chosen entity is then named at the head of the search observation for the controller.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from langgraph.config import get_config
from langgraph.types import interrupt
from pydantic import BaseModel, ConfigDict

from saga_kgqa.config.context import SagaContext
from saga_kgqa.text_safety import graph_text
from saga_kgqa.tools.results import SearchHit, SearchResult

_FROZEN = ConfigDict(frozen=True, extra="forbid")
#: Candidates offered at most (the best ones).
MAX_CANDIDATES = 6
#: Refused resumes before the run goes on without a choice (each one is a caller's mistake, said back to it).
MAX_REFUSALS = 5
#: Characters of a label, type or fact shown.
TEXT_CHARS = 120


class Candidate(BaseModel):
    """One entity the caller may choose.

    Attributes:
        id: Its compact id (``ex:JohnSmith2``): what to send back as the choice (the IRI works too).
        iri: Its full IRI.
        label: Its label.
        type: Its type's label (or id), if it declares one.
        fact: One fact that tells it from the others (its description, else its type).
    """

    model_config = _FROZEN

    id: str
    iri: str
    label: str
    type: str = ""
    fact: str = ""


class Clarification(BaseModel):
    """What an interrupted run asks its caller.

    Attributes:
        kind: Always ``clarify``.
        token: Send it back with the choice; a resume carrying another token is refused.
        question: The run's question.
        mention: The name that matched several entities.
        candidates: The entities it matched equally well, best first.
        refused: Why the last resume was refused ("" for the first ask).
    """

    model_config = _FROZEN

    kind: str = "clarify"
    token: str
    question: str
    mention: str
    candidates: tuple[Candidate, ...]
    refused: str = ""

    def resume(self, choice: str) -> dict[str, str]:
        """The value to resume with (``Command(resume=...)``) choosing ``choice`` (an id, an IRI or a number)."""
        if choice.isdigit() and 1 <= int(choice) <= len(self.candidates):
            choice = self.candidates[int(choice) - 1].id
        return {"token": self.token, "choice": choice}


def ambiguous_hits(result: SearchResult, margin: float) -> list[SearchHit]:
    """The entity hits as good as the best one (within ``margin`` of its score, matched the same way), if several."""
    entities = [hit for hit in result.hits if hit.kind == "entity"]
    if len(entities) < 2:
        return []
    best = max(entities, key=lambda hit: hit.score)
    close = [hit for hit in entities if hit.score >= best.score - margin and hit.match == best.match]
    distinct = list({hit.resource.iri: hit for hit in close}.values())
    return distinct[:MAX_CANDIDATES] if len(distinct) >= 2 else []


def candidate_of(hit: SearchHit) -> Candidate:
    """A hit as a candidate: its id, label, first type and one distinguishing fact (cleaned and capped)."""
    type_name = ""
    if hit.types:
        first = hit.types[0]
        type_name = graph_text(first.label or first.id, TEXT_CHARS)
    fact = graph_text(hit.description, TEXT_CHARS) if hit.description else (f"a {type_name}" if type_name else "")
    return Candidate(
        id=graph_text(hit.resource.id, TEXT_CHARS),
        iri=hit.resource.iri,
        label=graph_text(hit.resource.label or hit.matched, TEXT_CHARS),
        type=type_name,
        fact=fact,
    )


def clarification_token(thread: str, step: int, mention: str, candidates: Sequence[Candidate]) -> str:
    """A token that names this one question of this one thread (the same each time the node re-runs)."""
    material = "\x1f".join([thread, str(step), mention, *(c.iri for c in candidates)])
    return hashlib.sha256(material.encode("utf-8")).hexdigest()[:20]


def refusal(value: Any, asked: Clarification) -> tuple[Candidate | None, str]:
    """The candidate a resume value chooses, or why it is refused."""
    if not isinstance(value, Mapping):
        return None, 'resume with {"token": ..., "choice": ...}'
    if value.get("token") != asked.token:
        return None, "the token is not this question's (a stale or another run's answer): use the token asked"
    choice = str(value.get("choice") or "").strip()
    for candidate in asked.candidates:
        if choice in (candidate.id, candidate.iri):
            return candidate, ""
    return None, f"{graph_text(choice, 80)!r} is not one of the candidates: send one candidate's id"


def ask_which(result: SearchResult, context: SagaContext, *, question: str, step: int) -> Candidate | None:
    """Ask the caller which entity a name means, when it is ambiguous; the chosen one, or ``None`` (nothing asked).

    Raises:
        GraphInterrupt: (LangGraph's) the run pauses here until the caller resumes it.
    """
    if context.clarify != "ask":
        return None
    hits = ambiguous_hits(result, context.clarify_margin)
    if not hits:
        return None
    candidates = tuple(candidate_of(hit) for hit in hits)
    thread = str((get_config().get("configurable") or {}).get("thread_id") or "")
    mention = graph_text(result.query, TEXT_CHARS)
    asked = Clarification(
        token=clarification_token(thread, step, mention, candidates),
        question=graph_text(question, 600),
        mention=mention,
        candidates=candidates,
    )
    for _ in range(MAX_REFUSALS + 1):
        chosen, why = refusal(interrupt(asked.model_dump(mode="json")), asked)
        if chosen is not None:
            return chosen
        asked = asked.model_copy(update={"refused": why})
    return None


def chosen_text(chosen: Candidate, mention: str, offered: int) -> str:
    """The observation's first line: which entity the caller chose, so the controller uses it."""
    fact = f" ({chosen.fact})" if chosen.fact else ""
    return (
        f"Asked which {mention!r} is meant among {offered} candidates: the user chose {chosen.label} "
        f"{chosen.id}{fact}. Use {chosen.id} for {mention!r}, not the others.\n"
    )

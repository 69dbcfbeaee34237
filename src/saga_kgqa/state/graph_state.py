"""The LangGraph state of the SAGA controller: input, internal and output schemas.

Every field says which node writes it. Nodes return deltas; list fields are appended by
``operator.add``, Θ is merged by :func:`~saga_kgqa.state.type_state.merge_type_state`,
counters are summed, and everything else is overwritten by the last writer. Read fields
with ``state.get(...)``: a field nobody has written yet is absent. The TypedDicts come from
``typing_extensions`` because pydantic (which LangGraph uses for the schemas Studio shows)
rejects ``typing.TypedDict`` before Python 3.12.
"""

from __future__ import annotations

import operator
from typing import Annotated, NotRequired

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.state.evidence import Evidence
from saga_kgqa.state.outcome import RunOutcome, RunStatus
from saga_kgqa.state.records import (
    Action,
    Answer,
    AnswerType,
    KnowledgeEntry,
    PriorTurn,
    PruneRequest,
    QueryAttempt,
    Step,
    TokenUsage,
    TraceSummary,
    add_token_usage,
)
from saga_kgqa.state.type_state import TypeState, merge_type_state


def require_question(question: object) -> str:
    """Return the caller's question, refusing one that is missing, not text, empty or only whitespace.

    Raises:
        ConfigurationError: There is no question to answer.
    """
    if not isinstance(question, str) or not question.strip():
        raise ConfigurationError(f"the question is empty ({question!r}): ask a question in words")
    return question


class InputState(TypedDict):
    """What a caller passes in."""

    question: str
    """The natural-language question (written by the caller; never changed)."""

    conversation: NotRequired[list[PriorTurn]]
    """Earlier turns of the same conversation, oldest first (caller; prepended to the controller prompt)."""


class OutputState(TypedDict, total=False):
    """What a caller gets back (all written by ``finalize``)."""

    final_sparql: str | None
    """The final query as executed (exploratory LIMIT removed), or ``None`` when there is none."""

    answer: Answer | None
    """The answer rows or boolean of the final query."""

    status: RunStatus
    """How the run ended: ``answered``, ``partial``, ``empty``, ``failed``, ``timed_out``, ``refused`` or
    ``needs_clarification`` (the same as ``outcome.status``; kept for callers that read only this)."""

    outcome: RunOutcome
    """The run's outcome: status, reason, row counts, why it is empty, an earlier result that is not the answer."""

    summary: TraceSummary
    """Counts describing the run."""

    attempts: list[QueryAttempt]
    """Every query the controller ran, in order (see :class:`SagaState`)."""

    evidence: Evidence | None
    """The triples behind each answer row, up to ``evidence_rows`` rows (``evidence``, after ``finalize``)."""


class SagaState(InputState, OutputState, total=False):
    """The whole state: the input, the controller's working memory and the output."""

    answer_type: AnswerType | None
    """Expected answer type (``predict_answer_type``; ``None`` when the prior is switched off or unparsable)."""

    theta: Annotated[TypeState, merge_type_state]
    """Θ: types of entities and variables (``predict_answer_type``, ``lookup``, ``execute``; merged)."""

    knowledge_log: Annotated[list[KnowledgeEntry], operator.add]
    """Recent outcomes: ok / empty / blocked / type discovered (tool nodes; appended)."""

    history: Annotated[list[Step], operator.add]
    """Action-observation pairs (tool nodes and ``refuse_action``; appended)."""

    attempts: Annotated[list[QueryAttempt], operator.add]
    """Every query run by ``execute`` (appended; never rolled back)."""

    messages: Annotated[list[AnyMessage], add_messages]
    """Transcript: the controller's messages and the tool messages answering them (for UIs and parents)."""

    pending_action: Action | None
    """The action the controller chose (``controller``; cleared by the node that handles it)."""

    prune_request: PruneRequest | None
    """A lookup waiting for the model to prune it (``lookup``; cleared by ``prune_fallback``)."""

    answers_checked: Annotated[list[str], operator.add]
    """Final queries the answer checks have seen (``check_answer``; a second stop on one is accepted)."""

    steps: Annotated[int, operator.add]
    """Controller steps taken (``controller`` adds 1 per decision)."""

    llm_calls: Annotated[int, operator.add]
    """Model calls made (each model-calling node adds its calls)."""

    token_usage: Annotated[TokenUsage, add_token_usage]
    """Tokens spent (each model-calling node adds its usage)."""

    stop_reason: str
    """Why the loop ended: ``stop``, ``max_steps`` (``controller`` / ``finalize``)."""

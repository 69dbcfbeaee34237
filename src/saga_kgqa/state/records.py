"""Records kept in the agent state: the answer type, actions, steps, query attempts and the answer.

All are frozen pydantic models: a node builds new records and returns them as a state
delta, never edits one that is already in the state (SPINACH edits its state in place
and its rollback silently does nothing; see docs/reference-systems.md section 1.6).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from saga_kgqa.state.outcome import RunStatus as _RunStatus

_FROZEN = ConfigDict(frozen=True, extra="forbid")

#: The tools the controller may call.
ToolName = Literal["search", "lookup", "patterns", "examples", "execute", "stop"]

#: What one step's action led to, as the knowledge log and the history record it. ``refused``: the
#: action could not run (unknown tool, bad arguments, a repeat); ``rejected``: the read-only guard
#: refused its query; ``flagged``: the answer checks sent a ``stop`` back with findings (the run goes on).
Outcome = Literal["ok", "empty", "blocked", "rejected", "error", "refused", "flagged", "info"]

# How a run ended: one of seven outcomes (see saga_kgqa.state.outcome).
RunStatus = _RunStatus

AnswerKind = Literal["entity", "boolean", "quantity", "date", "literal", "unknown"]


class AnswerType(BaseModel):
    """The expected answer type predicted from the question (the paper's Appendix F.1).

    Attributes:
        label: A short English name ("person", "boolean", "quantity").
        type_id: The class as the model wrote it (a QID, a Freebase type or a prefixed name), or "".
        type_iri: The class IRI resolved from ``type_id``, when it resolves.
        kind: What kind of value the answer is.
    """

    model_config = _FROZEN

    label: str
    type_id: str = ""
    type_iri: str | None = None
    kind: AnswerKind = "unknown"


class Action(BaseModel):
    """One action the controller chose.

    Attributes:
        tool: The tool name as the model wrote it (it may be unknown).
        argument: The tool's single argument ("" for ``stop``).
        call_id: The tool-call id (native mode) or a generated one (text mode).
        thought: The model's reasoning text, when it gave one.
        problem: Why the action cannot run (unknown tool, bad arguments, a repeat); ``None`` when valid.
    """

    model_config = _FROZEN

    tool: str
    argument: str = ""
    call_id: str
    thought: str = ""
    problem: str | None = None


class Step(BaseModel):
    """One action and its observation (the paper's history H).

    Attributes:
        step: The controller step that chose the action (1-based).
        tool: The tool that ran (or was refused).
        argument: Its argument.
        observation: The text the model was shown.
        outcome: What the action led to.
        thought: The model's reasoning for the action, when it gave one.
    """

    model_config = _FROZEN

    step: int
    tool: str
    argument: str
    observation: str
    outcome: Outcome
    thought: str = ""


class KnowledgeEntry(BaseModel):
    """One line of the knowledge log: a recent outcome the controller should remember.

    Attributes:
        step: The step it came from.
        outcome: ``ok`` (found results), ``empty``, ``blocked``, ``rejected``, ``error``,
            ``refused``, ``flagged`` (the answer checks sent a stop back), or ``info`` (an entity type
            was discovered).
        summary: One short line.
    """

    model_config = _FROZEN

    step: int
    outcome: Outcome
    summary: str


class QueryAttempt(BaseModel):
    """One query the controller ran (every attempt is kept, whatever its outcome).

    Attributes:
        step: The step that ran it.
        sparql: The text the model wrote.
        status: ``ok``, ``empty``, ``blocked``, ``rejected`` or ``error``.
        row_count: Rows returned.
        boolean: The answer of an ASK query.
        source: The named source it ran on (``execute_on``); ``None``: the run's graph.
        error_kind: The error class of a rejected or failed query (``QueryTimeout``, ...).
        error_reason: The guard's reason code of a rejected query (``update``, ``syntax``, ...).
    """

    model_config = _FROZEN

    step: int
    sparql: str
    status: Literal["ok", "empty", "blocked", "rejected", "error"]
    row_count: int = 0
    boolean: bool | None = None
    source: str | None = None
    error_kind: str | None = None
    error_reason: str | None = None


class PruneRequest(BaseModel):
    """A lookup of an entity with no known type, waiting for the model to prune it (the paper's LLMPrune).

    Attributes:
        step: The step of the lookup.
        argument: The lookup's argument.
        entity: The entity as shown (label and id).
        head: The observation's lines before the property list.
        lines: Each listed property as (id, rendered line), in order.
        tail: The observation's lines after the property list.
        thought: The controller's reasoning for the lookup.
    """

    model_config = _FROZEN

    step: int
    argument: str
    entity: str
    head: str
    lines: tuple[tuple[str, str], ...]
    tail: str = ""
    thought: str = ""


class PriorTurn(BaseModel):
    """An earlier question of the same conversation, shown to the controller for context.

    Attributes:
        question: The earlier question.
        sparql: The final query it got, if any.
        answer: A short rendering of its answer, if any.
    """

    model_config = _FROZEN

    question: str
    sparql: str | None = None
    answer: str | None = None


class TokenUsage(BaseModel):
    """Tokens spent on model calls (summed by :func:`add_token_usage`)."""

    model_config = _FROZEN

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0


def add_token_usage(left: TokenUsage | None, right: TokenUsage | None) -> TokenUsage:
    """Sum two usages into a new one (the LangGraph reducer of ``token_usage``)."""
    left = left or TokenUsage()
    right = right or TokenUsage()
    return TokenUsage(
        input_tokens=left.input_tokens + right.input_tokens,
        output_tokens=left.output_tokens + right.output_tokens,
        total_tokens=left.total_tokens + right.total_tokens,
    )


class Answer(BaseModel):
    """The final answer: rows of a SELECT query, or the boolean of an ASK query.

    Attributes:
        variables: Projected variables.
        rows: Each row as variable → value (IRIs in full, literals as their lexical form).
        boolean: The ASK answer.
        row_count: Rows returned by the final execution.
        text: The rendered answer table, capped, as shown to a user.
    """

    model_config = _FROZEN

    variables: tuple[str, ...] = ()
    rows: tuple[dict[str, str], ...] = ()
    boolean: bool | None = None
    row_count: int = 0
    text: str = ""


class TraceSummary(BaseModel):
    """Counts that describe a run.

    Attributes:
        steps: Controller steps taken.
        llm_calls: Model calls made (all roles).
        outcomes: How many steps ended in each outcome.
        attempts: Queries run.
        token_usage: Tokens spent.
        stop_reason: Why the loop ended (``stop``, ``max_steps``, ``no_query``).
        unshaped_sparql: The model's final query when the answer-shape rule changed it (the
            returned ``final_sparql`` is then the shaped one); ``None`` when it was returned as is.
        dropped_columns: The display-only columns the shape rule removed.
    """

    model_config = _FROZEN

    steps: int = 0
    llm_calls: int = 0
    outcomes: dict[str, int] = Field(default_factory=dict)
    attempts: int = 0
    token_usage: TokenUsage = Field(default_factory=TokenUsage)
    stop_reason: str = ""
    unshaped_sparql: str | None = None
    dropped_columns: tuple[str, ...] = ()

"""The structured output of the MCP tools: small, JSON-friendly pydantic models beside the text observation.

The text content of a tool result is the observation the agent's own model reads; the
structured content carries the same facts for programs. Both are capped: the text at
the server's character cap, the lists here by :func:`cap_rows` so the JSON stays near it.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from saga_kgqa.serve.mcp.terms import TermOut

#: Default cap on the characters of one tool result (AutoSchema's evaluation used 6,000).
DEFAULT_MAX_CHARS = 6000


class UpstreamFailure(BaseModel):
    """The graph (store or endpoint) failed; the call itself was well-formed.

    Attributes:
        kind: The error class (``EndpointTimeout``, ``BackendError``, ...).
        message: What went wrong, capped and sanitised.
        query_at_fault: True when the query must change for a retry to help.
        retryable: True when the same call may succeed later.
    """

    kind: str
    message: str
    query_at_fault: bool = False
    retryable: bool = False


class ToolOutput(BaseModel):
    """Fields every tool result has.

    Attributes:
        source: The operator-configured source the call ran against.
        truncated: True when lists were cut to keep the result under the cap.
        error: Set when the graph failed (the result is then also flagged ``isError``).
    """

    source: str
    truncated: bool = False
    error: UpstreamFailure | None = None


class SearchHitOut(BaseModel):
    """One search hit: a resource id to use in lookup, examples or a query."""

    kind: Literal["entity", "class", "property"]
    id: str
    label: str | None = None
    matched: str
    match: str
    score: float
    description: str | None = None


class SearchOutput(ToolOutput):
    """What ``search`` found, best first."""

    query: str = ""
    hits: list[SearchHitOut] = Field(default_factory=list)


class PropertyOut(BaseModel):
    """A property the lookup kept (it fits the entity's types)."""

    id: str
    label: str | None = None
    domain: list[str] = Field(default_factory=list)
    range: list[str] = Field(default_factory=list)
    value_count: int = 0


class LookupOutput(ToolOutput):
    """An entity's types, the properties that fit them, and the ones hidden by their domain."""

    entity: str = ""
    label: str | None = None
    found: bool = False
    types: list[str] = Field(default_factory=list)
    properties: list[PropertyOut] = Field(default_factory=list)
    hidden: list[str] = Field(default_factory=list)
    session_types_known: int = Field(default=0, description="Resources whose types this MCP session now tracks (Θ).")


class ExampleOut(BaseModel):
    """One triple that uses the property."""

    subject: str
    object: str


class ExamplesOutput(ToolOutput):
    """A property's domain, range and a few triples that use it."""

    property: str = ""
    label: str | None = None
    found: bool = False
    domain: list[str] = Field(default_factory=list)
    range: list[str] = Field(default_factory=list)
    examples: list[ExampleOut] = Field(default_factory=list)


class BlockedOut(BaseModel):
    """A triple pattern (or a property) the pre-execution check refused, and why."""

    pattern: str
    side: str
    reason: str
    kind: Literal["type_conflict", "matches_nothing"] = Field(
        default="type_conflict", description="type_conflict, or matches_nothing (e.g. a property not in the graph)."
    )
    instead: list[str] = Field(default_factory=list, description="What to use instead (matches_nothing).")


class ExecuteOutput(ToolOutput):
    """The outcome of ``execute``: rows, an ASK answer, a block, a rejection or a diagnosis of an empty result."""

    status: Literal["ok", "empty", "blocked", "rejected", "error"] = "error"
    variables: list[str] = Field(default_factory=list)
    rows: list[dict[str, TermOut]] = Field(default_factory=list, description="Each cell a typed RDF term.")
    row_count: int = 0
    boolean: bool | None = None
    blocked: list[BlockedOut] = Field(default_factory=list)
    diagnosis: str | None = None
    problem: str | None = Field(default=None, description="Why the guard rejected the query (status 'rejected').")


class PatternOut(BaseModel):
    """One triple pattern of the entity: a property, its direction and how many triples use it."""

    property: str
    label: str | None = None
    direction: Literal["out", "in"] = Field(
        description="out: (entity, property, ?value); in: (?subject, property, entity)."
    )
    count: int = Field(default=0, description="Triples with this property in this direction (a lower bound if cut).")


class PatternsOutput(ToolOutput):
    """An entity's patterns ranked for a question (best first), and the ones hidden by their domain or range."""

    entity: str = ""
    question: str = ""
    types: list[str] = Field(default_factory=list)
    patterns: list[PatternOut] = Field(default_factory=list)
    hidden: list[str] = Field(default_factory=list, description="Properties whose domain or range conflicts.")


class AskOutput(ToolOutput):
    """The whole agent's answer to a question."""

    question: str = ""
    run_id: str = Field(default="", description="The run's checkpoint: ask again with it to resume a stopped run.")
    resumed: bool = False
    sparql: str | None = None
    variables: list[str] = Field(default_factory=list)
    rows: list[dict[str, TermOut]] = Field(default_factory=list, description="Each cell a typed RDF term.")
    boolean: bool | None = None
    steps: int = 0
    status: str = Field(
        default="",
        description="How the run ended: answered, partial, empty, failed, timed_out, refused or needs_clarification.",
    )
    reason: str = Field(
        default="", description="Why (stop, row_cap, step_budget, guard, run_deadline, cancelled, ...)."
    )
    message: str = Field(default="", description="The outcome in one sentence.")
    row_count: int = Field(default=0, description="Rows the final query returned (the answer's size).")
    rows_cut: bool = Field(default=False, description="The row cap cut the result: more rows exist.")
    rows_shown: int = Field(default=0, description="Rows listed here (fewer than row_count when cut to fit).")
    diagnosis: str | None = Field(default=None, description="Why the final query returned nothing, when known.")
    earlier_sparql: str | None = Field(
        default=None, description="An earlier query that returned rows: an earlier result, not the answer."
    )
    resumable: bool = Field(default=False, description="The run stopped early: ask again with run_id to resume it.")
    clarification: dict[str, Any] | None = Field(
        default=None,
        description="When status is needs_clarification: the mention, the candidates (id, label, type, fact) and "
        "why a choice was refused; call kg_ask again with run_id and choice=<a candidate's id>.",
    )
    evidence: dict[str, Any] | None = Field(
        default=None,
        description="The triples behind each answer row (rows[i] is answer row i; Wikidata statements with rank, "
        "qualifiers and references, deprecated ones flagged), as many rows as fit the result's cap.",
    )


def cap_evidence(output: AskOutput, max_chars: int) -> None:
    """Drop evidence rows from the end until the evidence's JSON fits ``max_chars`` (saying how many are kept)."""
    evidence = output.evidence
    if evidence is None:
        return
    rows = evidence.get("rows") or []
    while rows and len(json.dumps(evidence, ensure_ascii=False)) > max_chars:
        del rows[len(rows) * 3 // 4 :]
        evidence["rows_shown"] = len(rows)
        output.truncated = True


def cap_rows(output: ToolOutput, field: str, max_chars: int) -> None:
    """Drop items from the end of ``output.<field>`` until the JSON fits ``max_chars`` (marking it truncated)."""
    items = getattr(output, field)
    while items and len(json.dumps(output.model_dump(mode="json"), ensure_ascii=False)) > max_chars:
        del items[len(items) * 3 // 4 :]
        output.truncated = True

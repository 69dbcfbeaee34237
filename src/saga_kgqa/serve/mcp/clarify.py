"""``kg_ask`` asking back over MCP: elicitation when the client declares it, else ``needs_clarification``.

A run that waits on a question (:mod:`saga_kgqa.graph.clarify`) is answered in the same call when
the client declared the elicitation capability: the server sends ``elicitation/create`` with one
field, ``choice``, an enum of the candidates' ids (each titled with its label, type and fact), and
resumes the run with what the person chose. A client without elicitation, or a person who declines,
gets ``needs_clarification`` with the candidates in the structured content; calling ``kg_ask`` again
with the ``run_id`` and ``choice`` answers it.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field, JsonValue, create_model

from saga_kgqa.graph.clarify import Clarification


def can_elicit(ctx: Context[Any, Any]) -> bool:
    """Whether the client declared form elicitation (the official SDK does when given an elicitation callback)."""
    try:
        capabilities = ctx.request_context.session.client_capabilities
    except (AttributeError, LookupError, ValueError):
        return False
    return capabilities is not None and capabilities.elicitation is not None


def choice_schema(asked: Clarification) -> type[BaseModel]:
    """A one-field form: ``choice``, one of the candidates' ids."""
    ids: list[JsonValue] = [candidate.id for candidate in asked.candidates]
    titles: list[JsonValue] = [
        f"{candidate.label} ({candidate.id}{', ' + candidate.type if candidate.type else ''})"
        + (f": {candidate.fact}" if candidate.fact else "")
        for candidate in asked.candidates
    ]
    field = Field(
        description=f"Which {asked.mention!r} is meant",
        json_schema_extra={"enum": ids, "enumNames": titles},
    )
    model: type[BaseModel] = create_model("Choice", choice=(str, field))
    return model


def question_text(asked: Clarification) -> str:
    """The elicitation's message, and the text content of a ``needs_clarification`` result."""
    lines = [f"Which {asked.mention!r} do you mean?"]
    for number, candidate in enumerate(asked.candidates, start=1):
        kind = f", {candidate.type}" if candidate.type else ""
        fact = f": {candidate.fact}" if candidate.fact else ""
        lines.append(f"{number}. {candidate.label} ({candidate.id}{kind}){fact}")
    if asked.refused:
        lines.append(f"(not taken: {asked.refused})")
    return "\n".join(lines)


async def elicit_choice(ctx: Context[Any, Any], asked: Clarification) -> str | None:
    """The candidate id the person chose through elicitation, or ``None`` (not supported, declined, cancelled)."""
    if not can_elicit(ctx):
        return None
    result = await ctx.elicit(question_text(asked), choice_schema(asked))
    if result.action != "accept":
        return None
    choice: str = getattr(result.data, "choice", "")
    return choice or None

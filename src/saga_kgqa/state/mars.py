"""The MARS pipeline's state: SAGA's state plus the linked entities, the numbered patterns and the hop count.

MARS shares SAGA's records (attempts, steps, answer, summary, token usage), so the same
``finalize`` node, evaluator and checkpoint serializer serve both graphs.
"""

from __future__ import annotations

import operator
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict

from saga_kgqa.state.graph_state import SagaState

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class PatternEntry(BaseModel):
    """One numbered pattern the model was shown.

    Attributes:
        index: Its number in the prompt (1-based, unique across hops).
        hop: The hop that retrieved it (0: the question's own entities).
        text: The enriched line, without its number.
        entity: The entity IRI the pattern starts from.
        prop: The property IRI.
        direction: ``out`` or ``in``.
        instance_iris: The instances that are IRIs: the next hop's entities if it is expanded.
    """

    model_config = _FROZEN

    index: int
    hop: int
    text: str
    entity: str
    prop: str
    direction: Literal["out", "in"]
    instance_iris: tuple[str, ...] = ()


class MarsState(SagaState, total=False):
    """SAGA's state plus what the MARS nodes write."""

    augmented_question: str | None
    """The question with the expected entity types the model named (``link``; ``None`` when the switch is off)."""

    linked_entities: list[str]
    """Entities found for the question's mentions with the project's search (``link``)."""

    frontier: list[str]
    """Entities whose patterns the next ``retrieve`` reads (``link``, ``reason``)."""

    patterns: Annotated[list[PatternEntry], operator.add]
    """Every pattern shown, numbered across hops (``retrieve``; appended)."""

    pattern_notes: Annotated[list[str], operator.add]
    """What the bounded reads cut (``retrieve``; appended)."""

    hops: int
    """Expansions done so far (``reason``)."""

    candidate_sparql: str | None
    """The query the model wrote, waiting for ``execute`` (``reason``, ``verify``)."""

    verified: bool
    """Whether the verification pass already ran (``verify``)."""

"""Patterns as records, and their verbalisation (MARS's ``'Entity' 'property' ?value`` strings).

Two texts per pattern: :meth:`Pattern.embedding_text` is what a ranking compares with the
question (labels only: ids would only add noise to a similarity), and the enriched rendering
(:mod:`saga_kgqa.tools.patterns.enrichment`) is what a model reads (labels with ids, counts,
classes). Labels are graph text: they are made model-safe here, once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from saga_kgqa.text_safety import graph_text

Direction = Literal["out", "in"]

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_LABEL_CAP = 80


def humanised_name(iri: str) -> str:
    """A readable name from an IRI's local part (``memberOf`` → ``member of``), for unlabelled properties."""
    local = re.split(r"[/#:]", iri.rstrip("/#"))[-1] or iri
    return _CAMEL.sub(" ", local).replace("_", " ").strip().lower() or local


@dataclass(frozen=True, slots=True)
class Pattern:
    """One triple pattern around an entity.

    Attributes:
        entity: The entity IRI.
        entity_id: Its compact id as the model may write it in SPARQL.
        entity_label: Its label (model-safe), or its id when it has none.
        prop: The property IRI.
        property_id: Its compact id.
        property_label: Its label (model-safe), or a name made from its local part.
        direction: ``out`` for ``(entity, p, ?value)``, ``in`` for ``(?subject, p, entity)``.
        count: How many triples the entity has with this property in this direction (a lower
            bound when the read was capped; see :attr:`PatternSet.notes`).
    """

    entity: str
    entity_id: str
    entity_label: str
    prop: str
    property_id: str
    property_label: str
    direction: Direction
    count: int

    @property
    def key(self) -> tuple[str, str, Direction]:
        """``(entity, property, direction)``: what identifies the pattern (and what gold recall compares)."""
        return (self.entity, self.prop, self.direction)

    def embedding_text(self) -> str:
        """MARS's verbalisation without ids: ``'Isfahan' 'population' ?value``."""
        if self.direction == "out":
            return f"'{self.entity_label}' '{self.property_label}' ?value"
        return f"?subject '{self.property_label}' '{self.entity_label}'"

    def verbalised(self) -> str:
        """The verbalisation with ids: ``'Isfahan' (wd:Q42053) 'population' (wdt:P1082) ?value``."""
        entity = f"'{self.entity_label}' ({self.entity_id})"
        prop = f"'{self.property_label}' ({self.property_id})"
        if self.direction == "out":
            return f"{entity} {prop} ?value"
        return f"?subject {prop} {entity}"


def safe_label(text: str | None, fallback: str) -> str:
    """A label fit for a prompt: graph text made safe and capped, else ``fallback``."""
    if not text:
        return fallback
    return graph_text(text, _LABEL_CAP).replace("'", "\u2019")


@dataclass(slots=True)
class PatternSet:
    """The patterns of one or more entities, with what the reads had to leave out.

    Attributes:
        patterns: The patterns, in the order they were read (most frequent first per direction).
        notes: Plain sentences on caps that cut something (shown with the patterns).
    """

    patterns: list[Pattern] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def extend(self, other: PatternSet) -> None:
        """Add another set's patterns (skipping ones already present) and notes."""
        seen = {pattern.key for pattern in self.patterns}
        self.patterns.extend(pattern for pattern in other.patterns if pattern.key not in seen)
        self.notes.extend(other.notes)

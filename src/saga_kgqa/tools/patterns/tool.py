"""``patterns(entity)``: the top-N patterns of an entity for the current question, type-filtered like lookup.

The combination neither paper has: MARS's ranked, enriched patterns, with SAGA's rule that a
property whose domain (outgoing) or range (incoming) conflicts with the entity's known types
is hidden. An outgoing pattern is decided by lookup's own rule (:mod:`saga_kgqa.tools.lookup.hiding`:
hidden only when the schema or the data confirms the conflict), so both tools hide exactly the
same properties; an incoming one by the schema's range check. An unknown domain or an untyped
entity keeps all.
"""

from __future__ import annotations

from dataclasses import dataclass

from saga_kgqa.state import TypeState
from saga_kgqa.tools.context import ToolContext
from saga_kgqa.tools.lookup.dialect_reads import graph_superclasses
from saga_kgqa.tools.patterns.enrichment import EnrichSettings, enrich, render_patterns
from saga_kgqa.tools.patterns.model import Pattern
from saga_kgqa.tools.patterns.ranking import Ranking
from saga_kgqa.tools.patterns.retrieval import retrieve_patterns


@dataclass(frozen=True, slots=True)
class PatternsResult:
    """What ``patterns(entity)`` found and showed.

    Attributes:
        entity: The entity IRI.
        types: Its known types (declared, and from Θ).
        shown: The patterns shown, best first.
        hidden: Patterns whose property conflicts with the types.
        text: The observation for the model.
    """

    entity: str
    types: frozenset[str]
    shown: tuple[Pattern, ...]
    hidden: tuple[Pattern, ...]
    text: str

    @property
    def found(self) -> bool:
        """Whether any pattern was shown."""
        return bool(self.shown)


def patterns_tool(
    context: ToolContext,
    argument: str,
    *,
    question: str,
    ranking: Ranking,
    top_n: int = 20,
    type_state: TypeState | None = None,
    type_filter: bool = True,
) -> PatternsResult:
    """Rank an entity's patterns against the question, hide type conflicts, enrich the top N.

    Raises:
        ToolInputError: The argument is not an entity id.
    """
    entity = context.resolve(argument, role="entity")
    reads = context.reads()
    types = set(reads.types_of(entity, context.vocabulary.type_predicates, limit=context.caps.types_read))
    if type_state is not None:
        types |= type_state.types_of(entity, provenances=("declared", "pattern", "trace"))
    checked = types | graph_superclasses(reads, context.dialect, sorted(types), limit=context.caps.types_read * 10)
    found = retrieve_patterns(context, entity)
    # Outgoing: lookup's own decision (tools.hiding: hidden only when the schema or the data confirms it).
    outgoing = sorted({p.prop for p in found.patterns if p.direction == "out"})
    decisions = context.hiding.decide(reads, types, outgoing, mode=context.mode, entity=entity) if type_filter else {}
    kept: list[Pattern] = []
    hidden: list[Pattern] = []
    for pattern in found.patterns:
        if pattern.direction == "out":
            fits = pattern.prop not in decisions or not decisions[pattern.prop].hidden
        else:
            fits = not type_filter or _range_fits(context, checked, pattern)
        (kept if fits else hidden).append(pattern)
    top = ranking.rank(question, kept)[:top_n]
    notes = [*found.notes, *reads.notes]
    if hidden:
        names = ", ".join(sorted({p.property_id for p in hidden})[:10])
        notes.append(
            f"{len(hidden)} patterns hidden: their domain or range conflicts with the entity's types ({names})"
        )
    if len(kept) > len(top):
        notes.append(f"{len(kept) - len(top)} lower-ranked patterns not shown")
    head = f"Patterns of {context.ref(entity).id} ranked for the question (top {len(top)} of {len(kept)}):"
    text = head + "\n" + render_patterns(enrich(context, top, EnrichSettings()), notes)
    return PatternsResult(entity, frozenset(types), tuple(top), tuple(hidden), text)


def _range_fits(context: ToolContext, types: set[str], pattern: Pattern) -> bool:
    """An incoming pattern: the entity's types (with their graph superclasses) against the property's range."""
    return context.schema.range_compatibility(types, pattern.prop, mode=context.mode).keeps

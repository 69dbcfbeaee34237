"""Reading an entity's patterns: one bounded, grouped query per direction.

``SELECT ?p (COUNT(*) AS ?n) { { SELECT ?p { <e> ?p ?o } LIMIT scan } } GROUP BY ?p``: the
inner LIMIT bounds the triples read, so a node with millions of incoming edges (Wikidata's
"human") costs the same as any other; when the scan is full the counts are lower bounds and
the pattern set says so. Properties beyond ``max_properties`` (least frequent first) are cut
and counted. Every query is a checked template with a deadline (MARS's traversal has none);
a timeout becomes a note, never a failure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from saga_kgqa.errors import QueryTimeout
from saga_kgqa.kg.guard.sparql_terms import iri, string_literal
from saga_kgqa.tools.context import ToolContext
from saga_kgqa.tools.graph_reads import Reads
from saga_kgqa.tools.patterns.model import Direction, Pattern, PatternSet, humanised_name, safe_label


@dataclass(frozen=True, slots=True)
class RetrievalCaps:
    """How much one entity's pattern reads may touch.

    Attributes:
        scan: Triples read per direction before counting (the bound on a high-degree node).
        max_properties: Distinct properties kept per direction (most frequent first).
        incoming: Read incoming patterns too (``(?subject, p, entity)``).
    """

    scan: int = 20_000
    max_properties: int = 300
    incoming: bool = True


def retrieve_patterns(context: ToolContext, entity: str, caps: RetrievalCaps | None = None) -> PatternSet:
    """Read the outgoing and incoming patterns of one entity, labelled and bounded.

    Args:
        context: The tools' graph, schema, dialect and prefixes.
        entity: The entity IRI.
        caps: Read caps; the defaults when ``None``.

    Returns:
        The patterns, outgoing first, most frequent first, with notes on what was cut.
    """
    caps = caps or RetrievalCaps()
    reads = context.reads()
    found = PatternSet()
    directions: tuple[Direction, ...] = ("out", "in") if caps.incoming else ("out",)
    counts: dict[Direction, dict[str, int]] = {}
    for direction in directions:
        counts[direction] = _grouped_counts(context, reads, entity, direction, caps, found.notes)
    texts = context.texts(reads, {entity, *(prop for per in counts.values() for prop in per)})
    entity_ref = context.ref(entity, texts)
    entity_label = safe_label(entity_ref.label, entity_ref.id)
    for direction in directions:
        for prop, count in counts[direction].items():
            ref = context.ref(prop, texts)
            found.patterns.append(
                Pattern(
                    entity=entity,
                    entity_id=entity_ref.id,
                    entity_label=entity_label,
                    prop=prop,
                    property_id=ref.id,
                    property_label=safe_label(ref.label, humanised_name(prop)),
                    direction=direction,
                    count=count,
                )
            )
    found.notes.extend(note for note in reads.notes if note not in found.notes)
    return found


def retrieve_many(context: ToolContext, entities: Iterable[str], caps: RetrievalCaps | None = None) -> PatternSet:
    """The patterns of several entities together (each entity's read is bounded on its own)."""
    found = PatternSet()
    for entity in dict.fromkeys(entities):
        found.extend(retrieve_patterns(context, entity, caps))
    return found


def _grouped_counts(
    context: ToolContext, reads: Reads, entity: str, direction: Direction, caps: RetrievalCaps, notes: list[str]
) -> dict[str, int]:
    """``property → count`` for one direction, most frequent first, within the caps."""
    triple = f"{iri(entity)} ?p ?o" if direction == "out" else f"?s ?p {iri(entity)}"
    namespaces = context.dialect.property_namespaces
    # Statement links, labels and sitelinks would use up the scan on a Wikidata item: keep the
    # dialect's property namespaces inside the bounded read, not after it.
    keep = " || ".join(f"STRSTARTS(STR(?p), {string_literal(ns)})" for ns in namespaces)
    where = f"{triple} FILTER({keep})" if keep else triple
    body = (
        f"SELECT ?p (COUNT(*) AS ?n) WHERE {{ {{ SELECT ?p WHERE {{ {where} }} LIMIT {caps.scan} }} }} "
        "GROUP BY ?p ORDER BY DESC(?n) ?p"
    )
    label = "outgoing" if direction == "out" else "incoming"
    try:
        result = reads.select(body, limit=caps.max_properties)
    except QueryTimeout:
        notes.append(f"{label} patterns of {context.ref(entity).id}: the read timed out; none shown")
        return {}
    counts: dict[str, int] = {}
    for row in result.rows:
        if "p" not in row or (direction == "out" and not _is_pattern_predicate(context, row["p"].value)):
            continue
        try:
            counts[row["p"].value] = int(row["n"].value) if "n" in row else 0
        except ValueError:
            counts[row["p"].value] = 0
    entity_id = context.ref(entity).id
    if result.truncated:
        notes.append(
            f"{label} patterns of {entity_id}: only the {caps.max_properties} most frequent properties were kept"
        )
    scanned = sum(counts.values())
    if result.truncated and scanned < caps.scan:
        # The cut rows hold counts too: count the bounded scan itself to know whether it was full.
        scanned = _scanned(reads, where, caps.scan)
    if scanned >= caps.scan:
        notes.append(
            f"{label} patterns of {entity_id}: counted over the first {caps.scan} triples only "
            "(counts are lower bounds; rarer properties may be missing)"
        )
    return counts


def _scanned(reads: Reads, where: str, scan: int) -> int:
    """How many triples the bounded scan read (at most ``scan``; 0 when the count times out)."""
    body = f"SELECT (COUNT(*) AS ?n) WHERE {{ {{ SELECT ?p WHERE {{ {where} }} LIMIT {scan} }} }}"
    try:
        rows = reads.select(body, limit=1).rows
    except QueryTimeout:
        return 0
    try:
        return int(rows[0]["n"].value) if rows and "n" in rows[0] else 0
    except ValueError:
        return 0


def _is_pattern_predicate(context: ToolContext, predicate: str) -> bool:
    """A dialect property, or a type predicate: MARS ranks "instance of" like any other pattern."""
    return predicate in context.vocabulary.type_predicates or context.dialect.is_property(predicate)

"""Enriching the top-N patterns for the model: instance counts, a few instances, domain and range.

Each enriched pattern is one numbered line (the model names patterns by number to expand
them). Two of MARS's ablations are switches here: ``examples`` (a few instance labels per
pattern, bounded) and ``typology`` (the schema index's domain and range; a property the index
does not constrain is kept and said to be unconstrained, where MARS drops it). For Wikidata the
statement form (``p:``/``ps:``) is shown with the qualifiers the entity's statements carry, when
they carry any: that is where a question about a start date or a role needs it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from saga_kgqa.errors import QueryTimeout
from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.guard.sparql_terms import iri, string_literal
from saga_kgqa.tools.context import ToolContext
from saga_kgqa.tools.graph_reads import Texts
from saga_kgqa.tools.patterns.model import Pattern
from saga_kgqa.tools.render import iri_text, labelled, term_text


@dataclass(frozen=True, slots=True)
class EnrichSettings:
    """What enrichment adds (MARS's ablation switches) and how much it reads.

    Attributes:
        examples: Show a few instances per pattern.
        typology: Show domain and range from the schema index.
        instances: Instances read and shown per pattern.
        classes: Domain or range classes named per side.
        qualifiers: Qualifier properties named per Wikidata statement form.
    """

    examples: bool = True
    typology: bool = True
    instances: int = 3
    classes: int = 4
    qualifiers: int = 6


@dataclass(frozen=True, slots=True)
class EnrichedPattern:
    """A pattern with what the model is shown about it.

    Attributes:
        pattern: The pattern.
        instances: The instances shown (values of an outgoing pattern, subjects of an incoming one).
        instance_iris: The IRIs among them (the next hop's entities when the pattern is expanded).
        text: The rendered line, without its number.
    """

    pattern: Pattern
    instances: tuple[str, ...]
    instance_iris: tuple[str, ...]
    text: str


def enrich(context: ToolContext, patterns: Sequence[Pattern], settings: EnrichSettings) -> list[EnrichedPattern]:
    """Enrich patterns in order (bounded reads; a timed-out read leaves its pattern without instances)."""
    reads = context.reads()
    terms: dict[tuple[str, str, str], list[Term]] = {}
    for pattern in patterns:
        # Instances are read even when not shown: expansion needs the next hop's entities.
        terms[pattern.key] = _instances(context, pattern, settings.instances)
    iris = {term.value for found in terms.values() for term in found if term.kind == "uri"}
    classes = {c for pattern in patterns for side in _sides(context, pattern.prop) for c in side}
    texts = context.texts(reads, iris | classes) if iris or classes else {}
    labels = {resource: text.label for resource, text in texts.items() if text.label}
    enriched = []
    for pattern in patterns:
        found = terms[pattern.key]
        shown = tuple(term_text(term, context.prefixes, cap=60, labels=labels) for term in found)
        parts = [pattern.verbalised(), _count_text(pattern)]
        if settings.examples and shown:
            parts.append("e.g. " + ", ".join(shown))
        if settings.typology:
            parts.append(_typology(context, pattern.prop, texts, settings.classes))
        statement = _statement_form(context, pattern, settings.qualifiers) if pattern.direction == "out" else None
        if statement:
            parts.append(statement)
        enriched.append(
            EnrichedPattern(
                pattern=pattern,
                instances=shown if settings.examples else (),
                instance_iris=tuple(term.value for term in found if term.kind == "uri"),
                text="; ".join(parts),
            )
        )
    return enriched


def render_patterns(enriched: Sequence[EnrichedPattern], notes: Sequence[str] = (), *, start: int = 1) -> str:
    """Number the patterns (``[1] …``) and add the notes on what the reads cut."""
    lines = [f"[{index}] {item.text}" for index, item in enumerate(enriched, start=start)]
    lines.extend(f"note: {note}" for note in notes)
    return "\n".join(lines) if lines else "(no patterns)"


def _count_text(pattern: Pattern) -> str:
    noun = "value" if pattern.direction == "out" else "subject"
    return f"{pattern.count} {noun}{'' if pattern.count == 1 else 's'}"


def _instances(context: ToolContext, pattern: Pattern, limit: int) -> list[Term]:
    if limit <= 0:
        return []
    if pattern.direction == "out":
        body = f"SELECT DISTINCT ?x WHERE {{ {iri(pattern.entity)} {iri(pattern.prop)} ?x }}"
    else:
        body = f"SELECT DISTINCT ?x WHERE {{ ?x {iri(pattern.prop)} {iri(pattern.entity)} }}"
    try:
        rows = context.reads().select(body, limit=limit).rows
    except QueryTimeout:
        return []
    return [row["x"] for row in rows if "x" in row]


def _sides(context: ToolContext, prop: str) -> tuple[frozenset[str], frozenset[str]]:
    entry = context.schema.property_schema(prop)
    if entry is None:
        return frozenset(), frozenset()
    return entry.domain, entry.range


def _typology(context: ToolContext, prop: str, texts: Mapping[str, Texts], limit: int) -> str:
    """``domain: …; range: …``, each side saying ``unknown`` when the schema has nothing (kept, unlike MARS)."""
    entry = context.schema.property_schema(prop)
    if entry is None:
        return "domain, range: unknown (not in the schema index)"

    def side(classes: frozenset[str], name: str) -> str:
        if not classes:
            return f"{name}: unknown"
        ordered = sorted(classes)
        shown = [
            labelled(c, (texts.get(c) or Texts()).label or _class_label(context, c), context.prefixes)
            for c in ordered[:limit]
        ]
        more = f" and {len(ordered) - limit} more" if len(ordered) > limit else ""
        return f"{name}: {', '.join(shown)}{more}"

    if entry.datatype and not entry.range:
        return f"{side(entry.domain, 'domain')}; range: {iri_text(entry.datatype, context.prefixes)}"
    return f"{side(entry.domain, 'domain')}; {side(entry.range, 'range')}"


def _class_label(context: ToolContext, iri_value: str) -> str | None:
    info = context.schema.classes.get(iri_value)
    return info.label if info is not None else None


def _statement_form(context: ToolContext, pattern: Pattern, limit: int) -> str | None:
    """Wikidata: ``statement form: p:P ?st . ?st ps:P ?value``, with the qualifiers its statements carry."""
    predicates = context.dialect.statement_predicates(pattern.prop)
    qualifier_ns = context.dialect.qualifier_namespace
    if predicates is None or qualifier_ns is None:
        return None
    claim, statement = predicates
    body = (
        f"SELECT DISTINCT ?q WHERE {{ {iri(pattern.entity)} {iri(claim)} ?st . ?st ?q ?v "
        f"FILTER(STRSTARTS(STR(?q), {string_literal(qualifier_ns)})) }}"
    )
    try:
        rows = context.reads().select(body, limit=limit).rows
    except QueryTimeout:
        return None
    qualifiers = sorted(row["q"].value for row in rows if "q" in row)
    if not qualifiers:
        return None
    shown = ", ".join(labelled(q, _property_label(context, q), context.prefixes) for q in qualifiers)
    form = f"{iri_text(claim, context.prefixes)} ?st . ?st {iri_text(statement, context.prefixes)} ?value"
    return f"statement form: {form}; qualifiers: {shown}"


def _property_label(context: ToolContext, qualifier: str) -> str | None:
    """A qualifier's label: its direct property's, from the schema index."""
    entry = context.schema.property_schema(context.dialect.qualifier_property(qualifier))
    return entry.label if entry is not None else None

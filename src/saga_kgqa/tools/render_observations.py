"""Observations of the grounding tools: the compact text a model reads for search, lookup and examples.

Everything from the graph goes through the primitives of :mod:`saga_kgqa.tools.render`
(capped, invisible characters removed, tag-like text defanged, labels quoted), and each
observation ends under its byte cap. Lookup is rendered by :mod:`saga_kgqa.tools.lookup.render`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from saga_kgqa.text_safety import graph_text, quoted
from saga_kgqa.tools.render import cap_bytes, id_text, literal_text, names_list
from saga_kgqa.tools.results import (
    PropertyExamplesResult,
    PropertyInfo,
    Ref,
    SearchHit,
    SearchResult,
    Value,
)
from saga_kgqa.tools.search.label_index import normalise


@dataclass(frozen=True, slots=True)
class TextCaps:
    """Character and byte caps of rendered observations.

    Attributes:
        label_chars: One label.
        description_chars: One description.
        value_chars: One literal value.
        names_listed: Classes or properties named in one list (domains, hidden properties).
        observation_bytes: The whole observation, UTF-8 encoded.
    """

    label_chars: int = 80
    description_chars: int = 160
    value_chars: int = 80
    names_listed: int = 8
    observation_bytes: int = 6000


def ref_text(ref: Ref, caps: TextCaps) -> str:
    """Render ``"Label" (id)``, or only the id when the label adds nothing."""
    ident = id_text(ref.id)
    if not ref.label:
        return ident
    label = graph_text(ref.label, caps.label_chars)
    local = ident.rsplit(":", 1)[-1].strip("<>").rsplit("/", 1)[-1].rsplit("#", 1)[-1]
    if not label or squash(label) == squash(local):
        return ident
    return f"{quoted(ref.label, caps.label_chars)} ({ident})"


def value_text(value: Value, caps: TextCaps) -> str:
    """Render one value: a labelled id for IRIs, a quoted literal with its tag or datatype."""
    if value.kind == "uri":
        text = ref_text(Ref(iri=value.value, id=value.id or f"<{value.value}>", label=value.label), caps)
    elif value.kind == "literal":
        datatype_id = id_text(value.datatype_id) if value.datatype_id else None
        text = literal_text(
            value.value, datatype=value.datatype, lang=value.lang, datatype_id=datatype_id, cap=caps.value_chars
        )
    else:
        text = graph_text(f"_:{value.value}" if value.kind == "bnode" else value.value, caps.value_chars)
    if value.details:
        # Qualifiers and compound-value parts: one level deep, each with its property and typed value.
        parts = names_list(
            (
                f"{ref_text(d.property, caps)}: {value_text(d.value.model_copy(update={'details': ()}), caps)}"
                for d in value.details
            ),
            caps.names_listed,
        )
        text += f" [{parts}]"
    return text


def schema_text(info: PropertyInfo, caps: TextCaps) -> str:
    """Render ``domain: … ; range: …`` with the provenance of evidence that is not formal."""
    if not info.domain and not info.range:
        return "domain, range: unknown"
    parts = []
    for side, refs, source in (("domain", info.domain, info.domain_source), ("range", info.range, info.range_source)):
        if not refs:
            parts.append(f"{side}: unknown")
            continue
        names = names_list((ref_text(ref, caps) for ref in refs), caps.names_listed)
        parts.append(f"{side}: {names}" + (f" ({source})" if source not in ("formal", "none") else ""))
    return "; ".join(parts)


def property_text(info: PropertyInfo, caps: TextCaps) -> str:
    """Render the compact entry ``"label" (id): "description" — domain: …; range: …``."""
    head = ref_text(info.property, caps)
    if info.description:
        head += f": {quoted(info.description, caps.description_chars)}"
    return f"{head} — {schema_text(info, caps)}"


def render_search(result: SearchResult, caps: TextCaps) -> str:
    """Render search hits: entities and classes first, then properties with their domain and range."""
    query = quoted(result.query, caps.label_chars)
    if not result.hits:
        return cap_bytes(
            f"No entity, class or property name matches {query}. "
            "Try a shorter name, another spelling or a broader word.",
            caps.observation_bytes,
        )
    entities = [hit for hit in result.hits if hit.kind != "property"]
    properties = [hit for hit in result.hits if hit.kind == "property"]
    counts = f"{_count(len(entities), 'entity', 'entities')}, {_count(len(properties), 'property', 'properties')}"
    lines = [f"Search {query}: {counts}."]
    if entities:
        lines.append("Entities and classes:")
        lines.extend(f"- {_entity_hit(hit, caps)}" for hit in entities)
    if properties:
        lines.append("Properties:")
        lines.extend(f"- {_property_hit(hit, caps)}" for hit in properties)
    lines.extend(notes_lines(result.notes))
    return cap_bytes("\n".join(lines), caps.observation_bytes)


def render_examples(result: PropertyExamplesResult, caps: TextCaps) -> str:
    """Render a property's schema and a few triples that use it."""
    lines = [f"Property {property_text(result.info, caps)}"]
    if not result.found:
        lines.append("No triple uses this property.")
        if result.suggestions:
            lines.append("Properties with similar names:")
            lines.extend(f"- {_property_hit(hit, caps)}" for hit in result.suggestions)
        return cap_bytes("\n".join(lines + notes_lines(result.notes)), caps.observation_bytes)
    lines.append(f"Examples ({len(result.examples)}):")
    prop = id_text(result.info.property.id)
    lines.extend(
        f"- {value_text(example.subject, caps)} {prop} {value_text(example.object, caps)}"
        for example in result.examples
    )
    return cap_bytes("\n".join(lines + notes_lines(result.notes)), caps.observation_bytes)


def _entity_hit(hit: SearchHit, caps: TextCaps) -> str:
    line = ref_text(hit.resource, caps)
    if hit.kind == "class":
        line += " [class]"
    if hit.superclasses:
        line += f" — subclass of: {names_list((ref_text(c, caps) for c in hit.superclasses), 4)}"
    if hit.types:
        line += f" — types: {names_list((ref_text(t, caps) for t in hit.types), 4)}"
    if hit.description:
        line += f" — {quoted(hit.description, caps.description_chars)}"
    return line + _matched(hit, caps)


def _property_hit(hit: SearchHit, caps: TextCaps) -> str:
    line = property_text(hit.property, caps) if hit.property is not None else ref_text(hit.resource, caps)
    return line + _matched(hit, caps)


def _matched(hit: SearchHit, caps: TextCaps) -> str:
    via = f" via {id_text(hit.via)}" if hit.via else ""
    if hit.resource.label and normalise(hit.matched) == normalise(hit.resource.label):
        return f" [matched{via}]" if via else ""
    return f" [matched {quoted(hit.matched, caps.label_chars)}{via}]"


def notes_lines(notes: Sequence[str]) -> list[str]:
    """Render up to three notes of a result, each capped and escaped."""
    return [f"Note: {graph_text(note, 200)}" for note in notes[:3]]


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def squash(text: str) -> str:
    """Letters and digits of ``text``, case-folded: what two names share when they say the same."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())

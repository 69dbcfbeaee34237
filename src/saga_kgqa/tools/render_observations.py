"""Observations of the grounding tools: the compact text a model reads for search, lookup and examples.

Everything from the graph goes through the primitives of :mod:`saga_kgqa.tools.render`
(capped, invisible characters removed, tag-like text defanged, labels quoted), and each
observation ends under its byte cap. Lookup keeps its header and its hidden-properties
line whatever the caps: property lines are dropped first, with a line saying so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from saga_kgqa.tools.label_index import normalise
from saga_kgqa.tools.render import cap_bytes, id_text, literal_text, names_list
from saga_kgqa.tools.results import (
    HiddenProperty,
    KeptProperty,
    LookupResult,
    PropertyExamplesResult,
    PropertyInfo,
    Ref,
    SearchHit,
    SearchResult,
    Value,
)
from saga_kgqa.tools.text_safety import graph_text, quoted


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
    if not label or _squash(label) == _squash(local):
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
    lines.extend(_notes(result.notes))
    return cap_bytes("\n".join(lines), caps.observation_bytes)


def render_lookup(result: LookupResult, caps: TextCaps) -> tuple[str, int]:
    """Render a lookup; returns the text and how many kept properties it lists."""
    entity = ref_text(result.entity, caps)
    if not result.found:
        return cap_bytes(
            f"No resource {entity} in the graph: no triple mentions it. Use search to find the right id.",
            caps.observation_bytes,
        ), 0
    head = f"Entity {entity}"
    if result.description:
        head += f": {quoted(result.description, caps.description_chars)}"
    lines = [head]
    if result.types:
        lines.append(f"Types: {names_list((ref_text(t, caps) for t in result.types), caps.names_listed)}")
    else:
        lines.append("Types: none declared.")
    extra = [t for t in result.checked_types if t not in result.types]
    if extra:
        lines.append(
            f"Types known from earlier steps: {names_list((ref_text(t, caps) for t in extra), caps.names_listed)}"
        )
    if not result.kept and not result.hidden:
        incoming = names_list((ref_text(r, caps) for r in result.incoming), caps.names_listed)
        lines.append(f"It has no outgoing properties; it is the object of: {incoming or 'nothing'}.")
        return cap_bytes("\n".join(lines + _notes(result.notes)), caps.observation_bytes), 0
    tail = [_hidden_line(result, caps), *_reverse_lines(result, caps), *_notes(result.notes)]
    # Room for the "Properties (…)" header and the "(… more not shown …)" line, both bounded.
    budget = caps.observation_bytes - _size(lines) - _size(tail) - 400
    body: list[str] = []
    for kept in result.kept[: result.shown]:
        line = f"- {_kept_line(kept, caps)}"
        if _size([*body, line]) > budget:
            break
        body.append(line)
    listed = len(body)
    left = len(result.kept) - listed
    header = f"Properties ({len(body)} shown of {len(result.kept)} kept; {len(result.hidden)} hidden):"
    if result.needs_prune_fallback:
        header = f"Properties ({len(body)} shown of {len(result.kept)}; no type is known, so none was filtered):"
    if left:
        cut = names_list((id_text(k.info.property.id, 60) for k in result.kept[listed:]), 3)
        body.append(f"({left} more properties not shown: {cut})")
    text = "\n".join([*lines, header, *body, *tail])
    return cap_bytes(text, caps.observation_bytes), listed


def render_examples(result: PropertyExamplesResult, caps: TextCaps) -> str:
    """Render a property's schema and a few triples that use it."""
    lines = [f"Property {property_text(result.info, caps)}"]
    if not result.found:
        lines.append("No triple uses this property.")
        if result.suggestions:
            lines.append("Properties with similar names:")
            lines.extend(f"- {_property_hit(hit, caps)}" for hit in result.suggestions)
        return cap_bytes("\n".join(lines + _notes(result.notes)), caps.observation_bytes)
    lines.append(f"Examples ({len(result.examples)}):")
    prop = id_text(result.info.property.id)
    lines.extend(
        f"- {value_text(example.subject, caps)} {prop} {value_text(example.object, caps)}"
        for example in result.examples
    )
    return cap_bytes("\n".join(lines + _notes(result.notes)), caps.observation_bytes)


def _kept_line(kept: KeptProperty, caps: TextCaps) -> str:
    line = property_text(kept.info, caps)
    if kept.fits_answer_type:
        line += " [range fits the expected answer type]"
    values = "; ".join(value_text(v, caps) for v in kept.values)
    if kept.value_count == 1 and values:
        return f"{line} — value: {values}"
    if kept.value_count > len(kept.values):
        return f"{line} — {kept.value_count} values" + (f", e.g. {values}" if values else "")
    return f"{line} — values: {values}"


def _reverse_lines(result: LookupResult, caps: TextCaps) -> list[str]:
    if not result.reverse:
        return []
    lines = [f"Reverse properties ({len(result.reverse)}; other entities point here):"]
    for reverse in result.reverse[: caps.names_listed]:
        name = ref_text(reverse.inverse or reverse.property, caps)
        via = "" if reverse.inverse is None else f" (inverse of {ref_text(reverse.property, caps)})"
        subjects = "; ".join(value_text(v, caps) for v in reverse.subjects)
        lines.append(f"- {name}{via} — {reverse.value_count} subjects, e.g. {subjects}")
    return lines


def _hidden_line(result: LookupResult, caps: TextCaps) -> str:
    checked = names_list((ref_text(t, caps) for t in result.checked_types), caps.names_listed)
    if not result.hidden:
        if not result.checked_types:
            return "0 properties hidden: no type is known for this entity, so none could be checked."
        unknown = sum(1 for k in result.kept if k.decision == "unknown")
        suffix = f" ({unknown} kept without a known domain)" if unknown else ""
        return f"0 properties hidden: none conflicts with {checked}{suffix}."
    listed = names_list((_hidden_name(h, caps) for h in result.hidden), caps.names_listed)
    noun = "property" if len(result.hidden) == 1 else "properties"
    return f"{len(result.hidden)} {noun} hidden ({result.mode} check), domain conflicts with {checked}: {listed}"


def _hidden_name(hidden: HiddenProperty, caps: TextCaps) -> str:
    domain = names_list((id_text(ref.id) for ref in hidden.info.domain), 3)
    source = f", {hidden.info.domain_source}" if hidden.info.domain_source not in ("formal", "none") else ""
    return f"{id_text(hidden.info.property.id)} (domain {domain}{source})"


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
    if hit.resource.label and normalise(hit.matched) == normalise(hit.resource.label):
        return ""
    return f" [matched {quoted(hit.matched, caps.label_chars)}]"


def _notes(notes: Sequence[str]) -> list[str]:
    return [f"Note: {graph_text(note, 200)}" for note in notes[:3]]


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _size(lines: Sequence[str]) -> int:
    return sum(len(line.encode("utf-8")) + 1 for line in lines)


def _squash(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())

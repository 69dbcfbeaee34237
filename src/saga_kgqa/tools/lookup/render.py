"""The lookup observation: an entity's types and its kept properties, compact enough to skip a pruning call.

Each kept property takes one line, ``"label" (id): "short description" — range: … — values``.
What would repeat on every line is said once: a kept property's domain admits the
entity's types (that is why it was kept), so its domain is shown only when it could not
be checked; a range already shown is named by the property that showed it; descriptions
are cut to their first clause and dropped when they only restate the label; the sample
values lookup read (``ToolCaps.values_per_property``, none for the paper's property-only
entries) are shown with how many more there are; identifiers in other databases (the
dialect's ``identifier_datatypes``) are only named, on one line. Everything from the graph still goes
through :mod:`saga_kgqa.text_safety`, and the header and the hidden-properties line
survive any byte cap: property lines are dropped first, with a line saying so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from saga_kgqa.text_safety import graph_text, quoted
from saga_kgqa.tools.render import cap_bytes, id_text, names_list
from saga_kgqa.tools.render_observations import TextCaps, notes_lines, ref_text, squash, value_text
from saga_kgqa.tools.results import HiddenProperty, KeptProperty, LookupResult, PropertyInfo, Ref

#: Words of a description kept in a lookup line; the first clause usually says what the property means.
DESCRIPTION_WORDS = 8
#: Classes of a range (or of an unchecked domain) named in a lookup line before "+N more".
CLASSES_SHOWN = 1
# The first clause ends at a sentence or clause break; asides in brackets are dropped before looking for it.
_CLAUSE_END = re.compile(r"[.;:!?](?:\s|$)|\s[\u2014\u2013-]\s")
_ASIDE = re.compile(r"\s*(?:\([^()]*\)|\[[^\[\]]*\])")


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
    if not result.kept and not result.hidden and not result.identifiers:
        incoming = names_list((ref_text(r, caps) for r in result.incoming), caps.names_listed)
        lines.append(f"It has no outgoing properties; it is the object of: {incoming or 'nothing'}.")
        return cap_bytes("\n".join(lines + notes_lines(result.notes)), caps.observation_bytes), 0
    tail = [
        *_identifiers_line(result, caps),
        _hidden_line(result, caps),
        *_reverse_lines(result, caps),
        *notes_lines(result.notes),
    ]
    # Room for the "Properties (…)" header and the "(… more not shown …)" line, both bounded.
    budget = caps.observation_bytes - _size(lines) - _size(tail) - 400
    body: list[str] = []
    ranges_shown: dict[tuple[str, ...], str] = {}
    for kept in result.kept[: result.shown]:
        line = f"- {_kept_line(kept, caps, ranges_shown, checked=not result.needs_prune_fallback)}"
        if _size([*body, line]) > budget:
            break
        body.append(line)
    listed = len(body)
    left = len(result.kept) - listed
    header = f"Properties ({len(body)} shown of {len(result.kept)} kept; {len(result.hidden)} hidden)"
    if result.needs_prune_fallback:
        header = f"Properties ({len(body)} shown of {len(result.kept)}; no type is known, so none was filtered):"
    else:
        # Said once here rather than on every line: lookup kept these because their domain admits the types.
        header += ", whose domains admit the types above unless stated:"
    if left:
        cut = names_list((id_text(k.info.property.id, 60) for k in result.kept[listed:]), 3)
        body.append(f"({left} more properties not shown: {cut})")
    text = "\n".join([*lines, header, *body, *tail])
    return cap_bytes(text, caps.observation_bytes), listed


def short_description(description: str, label: str | None, words: int = DESCRIPTION_WORDS) -> str | None:
    """The first clause of a description, at most ``words`` words; ``None`` when it only restates the label.

    The text is cleaned by :func:`graph_text` first, so the cut never splits an escape.
    """
    text = _ASIDE.sub("", graph_text(description, 400))
    match = _CLAUSE_END.search(text)
    clause = text[: match.start()] if match else text
    kept = clause.split()
    short = " ".join(kept[:words]) + ("…" if len(kept) > words else "")
    if not short or (label and squash(short) in (squash(label), "")):
        return None
    return short


def _kept_line(kept: KeptProperty, caps: TextCaps, ranges_shown: dict[tuple[str, ...], str], *, checked: bool) -> str:
    info = kept.info
    line = ref_text(info.property, caps)
    if info.description:
        short = short_description(info.description, info.property.label)
        if short is not None:
            line += f": {quoted(short, caps.description_chars)}"
    if kept.basis in ("unknown_ancestry", "unconfirmed_source") and checked:
        # Kept although the domain seems to exclude the types: the conflict is not confirmed.
        domain = _classes(info.domain, info.domain_source, caps)
        why = "the types' superclasses are unknown" if kept.basis == "unknown_ancestry" else "a partial domain"
        line += f" — domain: {domain}, not confirmed ({why})"
        line += f" — range: {_range(info, caps, ranges_shown)}"
    elif kept.basis == "own_property" and checked:
        # The sampled domain missed this entity's class: say so, the domain is partial.
        domain = _classes(info.domain, info.domain_source, caps)
        line += f" — domain: {domain} as sampled, and this entity too — range: {_range(info, caps, ranges_shown)}"
    elif kept.decision == "unknown" and checked and not info.range:
        line += " — domain, range: unknown"
    else:
        if kept.decision == "unknown" and checked:
            line += " — domain: unknown"
        elif not checked and info.domain:
            line += f" — domain: {_classes(info.domain, info.domain_source, caps)}"
        line += f" — range: {_range(info, caps, ranges_shown)}"
    if kept.fits_answer_type:
        line += " [range fits the expected answer type]"
    return f"{line} — {_values(kept, caps)}"


def _range(info: PropertyInfo, caps: TextCaps, ranges_shown: dict[tuple[str, ...], str]) -> str:
    if not info.range:
        return "unknown"
    key = (info.range_source, *(ref.id for ref in info.range))
    full = _classes(info.range, info.range_source, caps)
    if key in ranges_shown:
        # Naming the property that showed this range only pays when it is shorter than the range itself.
        back = f"as for {ranges_shown[key]}"
        return back if len(back) < len(full) else full
    ranges_shown[key] = id_text(info.property.id)
    return full


def _classes(refs: Sequence[Ref], source: str, caps: TextCaps) -> str:
    # A labelled class tells the model more than a bare id; the order is otherwise the index's.
    refs = sorted(refs, key=lambda ref: not ref.label)
    names = ", ".join(ref_text(ref, caps) for ref in refs[:CLASSES_SHOWN])
    if len(refs) > CLASSES_SHOWN:
        names += f" +{len(refs) - CLASSES_SHOWN} more"
    return names + (f" ({source})" if source not in ("formal", "none") else "")


def _values(kept: KeptProperty, caps: TextCaps) -> str:
    # Lookup read only the samples its caps allow; the count says how many there are.
    shown = [value_text(v, caps) for v in kept.values]
    more = kept.value_count - len(shown)
    if not shown:
        return "1 value" if kept.value_count == 1 else f"{kept.value_count} values"
    if kept.value_count == 1:
        return f"value: {shown[0]}"
    text = ", ".join(shown)
    return f"{kept.value_count} values: {text} +{more} more" if more > 0 else f"values: {text}"


def _identifiers_line(result: LookupResult, caps: TextCaps) -> list[str]:
    if not result.identifiers:
        return []
    names = names_list((ref_text(ref, caps) for ref in result.identifiers), caps.names_listed)
    return [f"Identifiers in other databases ({len(result.identifiers)}; values not shown): {names}"]


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
    if not result.hidden:
        if not result.checked_types:
            return "0 properties hidden: no type is known for this entity, so none could be checked."
        unknown = sum(1 for k in result.kept if k.decision == "unknown")
        suffix = f" ({unknown} kept without a known domain)" if unknown else ""
        return f"0 properties hidden: none conflicts with the types above{suffix}."
    listed = names_list((_hidden_name(h) for h in result.hidden), caps.names_listed)
    noun = "property" if len(result.hidden) == 1 else "properties"
    # The types were listed a few lines up; naming them again would only cost tokens.
    return f"{len(result.hidden)} {noun} hidden ({result.mode} check), domain conflicts with the types above: {listed}"


def _hidden_name(hidden: HiddenProperty) -> str:
    domain = names_list((id_text(ref.id) for ref in hidden.info.domain), 3)
    source = f", {hidden.info.domain_source}" if hidden.info.domain_source not in ("formal", "none") else ""
    return f"{id_text(hidden.info.property.id)} (domain {domain}{source})"


def _size(lines: Sequence[str]) -> int:
    return sum(len(line.encode("utf-8")) + 1 for line in lines)

"""How much of a schema index is constrained, and by which source: what ``saga index build`` prints."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, ConfigDict

from saga_kgqa.schema.model import PropertySchema, SchemaIndex


class SideCoverage(BaseModel):
    """Coverage of one side (domain or range).

    Attributes:
        properties: Properties with a non-empty constraint on this side.
        by_kind: Those properties per source kind (``formal``, ``curated``, ``induced``...).
        by_origin: Those properties per named origin (``yago45_schema``, ``codex:...``); a
            property whose side has two origins counts under both.
    """

    model_config = ConfigDict(frozen=True)

    properties: int
    by_kind: dict[str, int]
    by_origin: dict[str, int]


class SchemaCoverage(BaseModel):
    """Coverage of a whole index.

    Attributes:
        endpoint_id: The graph the index describes.
        properties: Properties indexed.
        with_label: Properties with a label.
        with_datatype: Properties with a datatype.
        with_inverse: Properties with a declared inverse.
        domain: Coverage of domains.
        range: Coverage of ranges.
        classes: Classes in the class table.
        classes_with_parents: Classes with at least one superclass.
    """

    model_config = ConfigDict(frozen=True)

    endpoint_id: str
    properties: int
    with_label: int
    with_datatype: int
    with_inverse: int
    domain: SideCoverage
    range: SideCoverage
    classes: int
    classes_with_parents: int


def schema_coverage(index: SchemaIndex) -> SchemaCoverage:
    """Count what the index constrains, per side and per source."""
    entries = list(index.properties.values())
    return SchemaCoverage(
        endpoint_id=index.endpoint_id,
        properties=len(entries),
        with_label=sum(1 for e in entries if e.label),
        with_datatype=sum(1 for e in entries if e.datatype),
        with_inverse=sum(1 for e in entries if e.inverse),
        domain=_side(entries, "domain"),
        range=_side(entries, "range"),
        classes=len(index.classes),
        classes_with_parents=sum(1 for c in index.classes.values() if c.parents),
    )


def render_coverage(coverage: SchemaCoverage) -> str:
    """Render the coverage as a few aligned lines for the terminal."""
    total = max(coverage.properties, 1)
    lines = [
        f"schema index of {coverage.endpoint_id}",
        f"  properties indexed   {coverage.properties}",
        f"  with a label         {coverage.with_label}",
        f"  with a datatype      {coverage.with_datatype}",
        f"  with an inverse      {coverage.with_inverse}",
    ]
    for name, side in (("domain", coverage.domain), ("range", coverage.range)):
        lines.append(f"  with a {name:<13} {side.properties} ({100 * side.properties / total:.1f}%)")
        lines.extend(f"    {kind}: {count}" for kind, count in side.by_kind.items())
        lines.extend(f"    from {origin}: {count}" for origin, count in side.by_origin.items())
    lines.append(f"  classes              {coverage.classes} ({coverage.classes_with_parents} with a superclass)")
    return "\n".join(lines)


def _side(entries: list[PropertySchema], side: str) -> SideCoverage:
    constrained = [e for e in entries if getattr(e, side)]
    kinds = Counter(getattr(e, side + "_source") for e in constrained)
    origins = Counter(origin for e in constrained for origin in getattr(e, side + "_origins"))
    return SideCoverage(
        properties=len(constrained),
        by_kind=dict(sorted(kinds.items(), key=lambda item: (-item[1], item[0]))),
        by_origin=dict(sorted(origins.items(), key=lambda item: (-item[1], item[0]))),
    )

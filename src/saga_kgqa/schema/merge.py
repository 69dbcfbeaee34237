"""Combining schema indexes: a primary source, with another filling the sides it leaves open.

The paper uses formal constraints where a property has them and induced ones elsewhere;
:func:`fill_missing` is that rule applied to two whole indexes (for example P2302
constraints read from an endpoint, completed by an index induced from sampled triples).
"""

from __future__ import annotations

from saga_kgqa.schema.model import ClassInfo, PropertySchema, SchemaIndex


def fill_missing(primary: SchemaIndex, fallback: SchemaIndex) -> SchemaIndex:
    """Return ``primary`` with every missing domain, range or description taken from ``fallback``.

    A side is taken from ``fallback`` only when ``primary`` has no constraint on it, together
    with its source, origins, relation and evidence; a side is never mixed from both.
    Properties only ``fallback`` knows are added as they are; the class tables are united
    (parents of a class from both).

    Args:
        primary: The index whose constraints win (formal or curated ones).
        fallback: The index that fills the gaps (usually induced).

    Returns:
        A new index with ``primary``'s endpoint, predicates and settings, and both indexes' notes.
    """
    properties = dict(fallback.properties)
    for iri, entry in primary.properties.items():
        other = fallback.properties.get(iri)
        properties[iri] = entry if other is None else _fill_entry(entry, other)
    classes = dict(fallback.classes)
    for iri, info in primary.classes.items():
        other_class = classes.get(iri)
        classes[iri] = info if other_class is None else _fill_class(info, other_class)
    return primary.model_copy(
        update={
            "properties": dict(sorted(properties.items())),
            "classes": dict(sorted(classes.items())),
            "notes": primary.notes + fallback.notes,
        }
    )


def _fill_entry(entry: PropertySchema, other: PropertySchema) -> PropertySchema:
    update: dict[str, object] = {
        name: getattr(other, name)
        for name in ("label", "description", "datatype", "inverse")
        if getattr(entry, name) is None and getattr(other, name) is not None
    }
    for side in ("domain", "range"):
        if not getattr(entry, side) and getattr(other, side):
            for suffix in ("", "_source", "_origins", "_relation", "_evidence"):
                update[side + suffix] = getattr(other, side + suffix)
    return entry.model_copy(update=update) if update else entry


def _fill_class(info: ClassInfo, other: ClassInfo) -> ClassInfo:
    return info.model_copy(
        update={
            "label": info.label or other.label,
            "description": info.description or other.description,
            "parents": info.parents | other.parents,
        }
    )

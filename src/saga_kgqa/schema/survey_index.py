"""The schema index a survey's evidence gives: per-property domains and ranges (source ``surveyed``)."""

from __future__ import annotations

from collections import Counter

from saga_kgqa.schema.induction import InductionSettings, most_common_datatype, supported_types
from saga_kgqa.schema.model import (
    BuildSettings,
    ClassInfo,
    ClassUsage,
    PropertySchema,
    SchemaIndex,
    SideEvidence,
    TypeCount,
)
from saga_kgqa.schema.survey_model import SurveyedClass, SurveyLimits
from saga_kgqa.schema.vocab import SchemaVocabulary, is_datatype

#: Object types kept per property (the most frequent first).
TYPES_PER_PROPERTY = 20
# A range is declared only where most sampled objects are typed: a property whose objects
# are mostly untyped IRIs (external links) gets no range from a few typed ones.
_TYPED_SHARE_FOR_RANGE = 0.5


def index_from_evidence(
    endpoint_id: str,
    classes: list[SurveyedClass],
    parents: dict[str, set[str]],
    vocabulary: SchemaVocabulary,
    limits: SurveyLimits,
) -> SchemaIndex:
    """Turn the per-class evidence into per-property domains and ranges (source ``surveyed``).

    Args:
        endpoint_id: The surveyed backend's id.
        classes: The surveyed classes with their properties' evidence.
        parents: Subclass links found between them.
        vocabulary: Type and subclass predicates.
        limits: The survey's bounds (its sample size and support).
    """
    usage: dict[str, list[ClassUsage]] = {}
    objects: dict[str, Counter[str]] = {}
    kinds: dict[str, Counter[str]] = {}
    untyped: Counter[str] = Counter()
    for cls in classes:
        for prop in cls.properties:
            usage.setdefault(prop.iri, []).append(
                ClassUsage(type_iri=cls.iri, instances_sampled=cls.sampled, instances_using=prop.instances_using)
            )
            objects.setdefault(prop.iri, Counter()).update({t.type_iri: t.count for t in prop.object_types})
            kinds.setdefault(prop.iri, Counter()).update({k.kind: k.count for k in prop.object_kinds})
            untyped[prop.iri] += prop.untyped_objects
    settings = InductionSettings(sample_size=limits.max_instances, support=limits.support, min_sample=1)
    entries: dict[str, PropertySchema] = {}
    for prop_iri, used_by in sorted(usage.items()):
        domain_evidence = SideEvidence(sampled=sum(u.instances_using for u in used_by), class_usage=tuple(used_by))
        range_evidence = _range_evidence(objects[prop_iri], kinds[prop_iri], untyped[prop_iri])
        domain = supported_types(domain_evidence, settings)
        typed = range_evidence.sampled - range_evidence.untyped
        range_ = (
            supported_types(range_evidence, settings)
            if typed >= _TYPED_SHARE_FOR_RANGE * range_evidence.sampled
            else frozenset()
        )
        entries[prop_iri] = PropertySchema(
            iri=prop_iri,
            datatype=most_common_datatype(range_evidence),
            domain=domain,
            range=range_,
            domain_source="surveyed" if domain else "none",
            range_source="surveyed" if range_ else "none",
            domain_evidence=domain_evidence,
            range_evidence=range_evidence,
        )
    names = {c.iri for c in classes} | set(parents) | {p for found in parents.values() for p in found}
    names |= {c for entry in entries.values() for c in entry.range if not is_datatype(c)}
    table = {name: ClassInfo(iri=name, parents=frozenset(parents.get(name, ()))) for name in sorted(names)}
    return SchemaIndex(
        endpoint_id=endpoint_id,
        type_predicates=vocabulary.type_predicates,
        subclass_predicates=vocabulary.subclass_predicates,
        properties=entries,
        classes=table,
        settings=BuildSettings(
            induce=True, stratify=True, sample_size=limits.max_instances, support=limits.support, min_sample=1
        ),
    )


def _range_evidence(types: Counter[str], kinds: Counter[str], untyped: int) -> SideEvidence:
    """Object-side evidence: typed values per class or datatype, untyped IRIs and blank nodes."""
    literals = kinds.get("literal", 0) + kinds.get("lang", 0)
    resources = kinds.get("iri", 0) + kinds.get("bnode", 0)
    ranked = sorted(types.items(), key=lambda item: (-item[1], item[0]))[:TYPES_PER_PROPERTY]
    return SideEvidence(
        sampled=literals + resources,
        untyped=untyped,
        literals=literals,
        counts=tuple(TypeCount(type_iri=t, count=n) for t, n in ranked),
    )

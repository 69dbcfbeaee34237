"""lookup(entity): the entity's types and its outgoing properties, filtered by type compatibility.

This is the paper's type-constrained grounding (Eq. 3, made subclass-aware): a property
is hidden only when the schema index gives it a domain that conflicts with every known
type of the entity *and* the schema can confirm it (every type's ancestry recorded, or a
closed schema; sampled instances of the type do not use it: :mod:`saga_kgqa.tools.lookup.hiding`);
a missing domain, an unknown ancestry, or an entity with no known type, keeps it. The
entity's declared types become the Θ delta. With no type at all nothing is filtered and
``needs_prune_fallback`` tells the agent graph it may prune with the model instead.
"""

from __future__ import annotations

from collections.abc import Mapping

from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.schema.queries import path_alternative
from saga_kgqa.schema.vocab import RDFS_CLASS
from saga_kgqa.state import TypeProvenance, TypeState, declared_types
from saga_kgqa.tools.context import ToolContext
from saga_kgqa.tools.graph_reads import Reads, Texts
from saga_kgqa.tools.identifiers import id_number_order
from saga_kgqa.tools.lookup.dialect_reads import Details, compound_values, qualifiers, reverse_properties
from saga_kgqa.tools.lookup.render import render_lookup
from saga_kgqa.tools.results import (
    HiddenProperty,
    KeptProperty,
    LookupResult,
    Ref,
    ReverseProperty,
    Value,
    ValueDetail,
)

#: Θ evidence used to check a lookup: what the graph declares and what queries showed, never the answer prior.
_CHECKED_PROVENANCES: tuple[TypeProvenance, ...] = ("declared", "pattern", "trace")


def lookup_entity(
    context: ToolContext, argument: str, *, type_state: TypeState | None = None, step: int | None = None
) -> LookupResult:
    """Look up an entity (see :meth:`saga_kgqa.tools.toolbox.ToolView.lookup`)."""
    entity = context.resolve(argument, role="entity")
    reads = context.reads()
    caps = context.caps
    declared = reads.types_of(entity, context.vocabulary.type_predicates, limit=caps.types_read)
    # E.7: a class-level entity ("communist state") has no type of its own; typed as a class, it is checked.
    class_level = not declared and _is_class(context, reads, entity)
    if class_level:
        declared = [RDFS_CLASS]
    counts = reads.property_counts(entity, limit=caps.properties_read)
    type_predicates = set(context.vocabulary.type_predicates)
    dialect = context.dialect
    counts = {prop: n for prop, n in counts.items() if prop not in type_predicates and dialect.is_property(prop)}
    detail = "lookup: a class (it has superclasses or instances)" if class_level else "lookup"
    delta = declared_types(entity, declared, step=step, detail=detail)
    if not counts:
        return _without_properties(context, reads, entity, declared, delta)
    identifiers = sorted((prop for prop in counts if _is_identifier(context, prop)), key=id_number_order)
    for prop in identifiers:
        del counts[prop]

    known = set(declared)
    if type_state is not None:
        known |= type_state.types_of(entity, provenances=_CHECKED_PROVENANCES)
    answer_types = type_state.answer_types() if type_state is not None else frozenset()
    # An instance of a class is an instance of its superclasses (P279 in the data); checked, not listed.
    # A property is hidden only when the schema (or the data) confirms the conflict (tools.hiding).
    decisions = context.hiding.decide(reads, known, sorted(counts), mode=context.mode, entity=entity)
    kept_verdicts = []
    hidden_verdicts = []
    for prop in sorted(counts):
        decision = decisions[prop]
        if not decision.hidden:
            fits = bool(answer_types) and _fits_answer(context, answer_types, prop)
            kept_verdicts.append((prop, decision.verdict, fits))
        else:
            hidden_verdicts.append((prop, decision))
    # Properties whose range fits the expected answer type first (a bias, never a filter).
    kept_verdicts.sort(key=lambda item: (not item[2], context.ref(item[0]).id))
    shown = [prop for prop, _verdict, _fits in kept_verdicts[: caps.properties_shown]]
    values = (
        reads.outgoing(entity, shown, per_property=caps.values_per_property, limit=caps.triples_read)
        if caps.values_per_property > 0
        else {}
    )
    per_value = caps.text.names_listed
    details = qualifiers(reads, dialect, entity, values, per_value=per_value, limit=caps.triples_read)
    details.update(compound_values(reads, dialect, entity, values, per_value=per_value, limit=caps.triples_read))
    reverse = (
        reverse_properties(reads, dialect, entity, limit=caps.properties_read) if dialect.reverse_properties else {}
    )

    wanted = {entity, *declared, *known, *context.schema_resources([*shown, *identifiers])}
    wanted |= {prop for prop, _decision in hidden_verdicts}
    wanted |= {term.value for terms in values.values() for term in terms if term.kind == "uri"}
    wanted |= {term.value for parts in details.values() for _p, term in parts if term.kind == "uri"}
    wanted |= {p for parts in details.values() for p, _term in parts}
    wanted |= {*reverse, *(t.value for _n, terms in reverse.values() for t in terms if t.kind == "uri")}
    texts = context.texts(reads, wanted)
    kept = tuple(
        KeptProperty(
            info=context.property_info(prop, texts),
            value_count=counts[prop],
            values=tuple(_value(context, prop, term, texts, details) for term in values.get(prop, [])),
            decision=verdict.decision,
            basis=verdict.basis,
            reason=verdict.reason,
            fits_answer_type=fits,
        )
        for prop, verdict, fits in kept_verdicts
    )
    hidden = tuple(
        HiddenProperty(
            info=context.property_info(prop, texts),
            value_count=counts[prop],
            basis=decision.verdict.basis,
            reason=decision.verdict.reason,
            rule=decision.rule or "domain_conflict",
        )
        for prop, decision in hidden_verdicts
    )
    result = LookupResult(
        entity=context.ref(entity, texts),
        found=True,
        description=_description(texts, entity),
        types=tuple(context.ref(t, texts) for t in declared),
        checked_types=tuple(context.ref(t, texts) for t in sorted(known)),
        mode=context.mode,
        kept=kept,
        hidden=hidden,
        shown=len(shown),
        reverse=_reverse(context, reverse, texts),
        identifiers=tuple(context.property_info(prop, texts).property for prop in identifiers),
        needs_prune_fallback=not known,
        type_delta=delta,
        notes=tuple(reads.notes),
    )
    text, listed = render_lookup(result, caps.text)
    return result.model_copy(update={"text": text, "shown": listed})


def _is_class(context: ToolContext, reads: Reads, entity: str) -> bool:
    """True when the entity has a superclass or instances: it is a class, not an instance."""
    vocabulary = context.vocabulary
    branches = []
    if vocabulary.subclass_predicates:
        branches.append(f"{{ {iri(entity)} {path_alternative(vocabulary.subclass_predicates)} ?super }}")
    if vocabulary.type_predicates:
        branches.append(f"{{ ?instance {path_alternative(vocabulary.type_predicates)} {iri(entity)} }}")
    return bool(branches) and reads.ask(" UNION ".join(branches))


def _is_identifier(context: ToolContext, prop: str) -> bool:
    entry = context.schema.property_schema(prop)
    return entry is not None and entry.datatype in context.dialect.identifier_datatypes


def _without_properties(
    context: ToolContext, reads: Reads, entity: str, declared: list[str], delta: TypeState
) -> LookupResult:
    """An entity with no outgoing property: say what points at it, or that nothing mentions it."""
    incoming = reads.incoming_properties(entity, limit=context.caps.text.names_listed)
    found = bool(incoming or declared)
    texts = context.texts(reads, [entity, *incoming, *declared]) if found else {}
    result = LookupResult(
        entity=context.ref(entity, texts),
        found=found,
        description=_description(texts, entity),
        types=tuple(context.ref(t, texts) for t in declared),
        checked_types=tuple(context.ref(t, texts) for t in declared),
        mode=context.mode,
        incoming=tuple(context.ref(p, texts) for p in incoming),
        type_delta=delta,
        notes=tuple(reads.notes),
    )
    text, _listed = render_lookup(result, context.caps.text)
    return result.model_copy(update={"text": text})


def _value(context: ToolContext, prop: str, term: Term, texts: Mapping[str, Texts], details: Details) -> Value:
    """A value with its qualifiers or compound-value parts, each property named by its schema label."""
    value = context.value(term, texts)
    parts = details.get((prop, term))
    if not parts:
        return value
    return value.model_copy(
        update={
            "details": tuple(
                ValueDetail(property=_detail_ref(context, p, texts), value=context.value(o, texts)) for p, o in parts
            )
        }
    )


def _detail_ref(context: ToolContext, predicate: str, texts: Mapping[str, Texts]) -> Ref:
    """A qualifier (``pq:P585``) keeps its own id but borrows the label of its direct property."""
    ref = context.ref(predicate, texts)
    if ref.label is None:
        direct = context.ref(context.dialect.qualifier_property(predicate), texts)
        ref = ref.model_copy(update={"label": direct.label})
    return ref


def _reverse(
    context: ToolContext, reverse: Mapping[str, tuple[int, list[Term]]], texts: Mapping[str, Texts]
) -> tuple[ReverseProperty, ...]:
    """Incoming properties, named by their schema inverse where one is known (Freebase reverse_properties)."""
    listed = []
    for prop in sorted(reverse, key=lambda p: (-reverse[p][0], p)):
        count, subjects = reverse[prop]
        entry = context.schema.property_schema(prop)
        inverse = context.ref(entry.inverse, texts) if entry is not None and entry.inverse else None
        listed.append(
            ReverseProperty(
                property=context.ref(prop, texts),
                inverse=inverse,
                value_count=count,
                subjects=tuple(context.value(term, texts) for term in subjects),
            )
        )
    return tuple(listed)


def _fits_answer(context: ToolContext, answer_types: frozenset[str], prop: str) -> bool:
    verdict = context.schema.range_compatibility(answer_types, prop, mode=context.mode)
    return verdict.decision == "keep" and verdict.basis != "universal"


def _description(texts: dict[str, Texts], resource: str) -> str | None:
    found = texts.get(resource)
    return found.description if found is not None else None

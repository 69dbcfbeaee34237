"""Typed results of the grounding tools.

Each result carries the data a program reads (``model_dump()``), the capped and escaped
``text`` a model reads (rendered once by :mod:`saga_kgqa.tools.render_observations`, left
out of dumps), and ``type_delta``, the Θ update the agent graph merges with
:func:`saga_kgqa.state.merge_type_state`. Text fields in the data are the graph's raw text:
only ``text`` is safe to show a model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from saga_kgqa.kg.core.result import TermKind
from saga_kgqa.schema import CompatibilityMode, SchemaSource
from saga_kgqa.schema.compatibility import Basis, Decision, HideRule
from saga_kgqa.state import TypeState
from saga_kgqa.tools.search.label_index import MatchKind

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Ref(BaseModel):
    """A resource named in a result: a class, datatype, property or entity.

    Attributes:
        iri: The full IRI.
        id: The compact id shown to a model (``pv:Employee``, or ``<iri>``).
        label: Its preferred label, if known.
    """

    model_config = _FROZEN

    iri: str
    id: str
    label: str | None = None


class Value(BaseModel):
    """One value of a property (an object of a triple, or a subject in an example).

    Attributes:
        kind: ``uri``, ``literal``, ``bnode`` or ``triple``.
        value: The IRI or lexical form.
        id: The compact id of an IRI.
        label: The label of an IRI, if known.
        datatype: The datatype of a typed literal.
        datatype_id: The compact id of the datatype.
        lang: The language tag of a literal.
        details: What the graph says about this value itself: a Wikidata statement's
            qualifiers, or the properties of a Freebase compound value (CVT) node.
    """

    model_config = _FROZEN

    kind: TermKind
    value: str
    id: str | None = None
    label: str | None = None
    datatype: str | None = None
    datatype_id: str | None = None
    lang: str | None = None
    details: tuple[ValueDetail, ...] = ()


class ValueDetail(BaseModel):
    """A qualifier of a statement, or a property of a compound value node, with its value."""

    model_config = _FROZEN

    property: Ref
    value: Value


class PropertyInfo(BaseModel):
    """A property with its schema: label, description, domain and range with provenance."""

    model_config = _FROZEN

    property: Ref
    description: str | None = None
    domain: tuple[Ref, ...] = ()
    range: tuple[Ref, ...] = ()
    domain_source: SchemaSource = "none"
    range_source: SchemaSource = "none"


class KeptProperty(BaseModel):
    """A property of an entity that lookup shows.

    Attributes:
        info: The property and its schema.
        value_count: How many values the entity has for it.
        values: A few of them.
        decision: ``keep`` (compatible) or ``unknown`` (no domain or no types to check).
        basis: Which compatibility rule decided.
        reason: The verdict's reason, in one sentence.
        fits_answer_type: Its range is compatible with the expected answer type.
    """

    model_config = _FROZEN

    info: PropertyInfo
    value_count: int
    values: tuple[Value, ...] = ()
    decision: Decision
    basis: Basis
    reason: str
    fits_answer_type: bool = False


class HiddenProperty(BaseModel):
    """A property of an entity that lookup hid, and why.

    Attributes:
        info: The property with its domain and range.
        value_count: How many values the entity has for it.
        basis: The compatibility rule behind the conflict.
        reason: One sentence naming the conflict and what confirmed it.
        rule: Which hide rule hid it (:mod:`saga_kgqa.tools.lookup.hiding`): ``domain_conflict``
            (every type's ancestry is recorded and none reaches the domain) or
            ``closed_schema`` (a flat, closed ontology).
    """

    model_config = _FROZEN

    info: PropertyInfo
    value_count: int
    basis: Basis
    reason: str
    rule: HideRule = "domain_conflict"


class ToolResult(BaseModel):
    """Fields every grounding tool result has.

    Attributes:
        text: The observation for a model: capped, escaped, under the byte cap. Not dumped.
        type_delta: Types learnt by this call, for the agent graph to merge into Θ.
        notes: Remarks on limits reached while reading the graph.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(default="", exclude=True)
    type_delta: TypeState = Field(default_factory=TypeState)
    notes: tuple[str, ...] = ()


class SearchHit(BaseModel):
    """One search result.

    Attributes:
        kind: ``entity``, ``class`` or ``property``.
        resource: The resource and its preferred label.
        matched: The name that matched (a label, an alias or a local name).
        match: How it matched.
        score: Ranking score in (0, 1.1].
        description: Short description, if any.
        types: Declared types (entities only).
        superclasses: Direct superclasses (classes only).
        property: Domain and range (properties only).
        via: The property whose value matched, when it is not a label or the schema's own name.
    """

    model_config = _FROZEN

    kind: Literal["entity", "class", "property"]
    resource: Ref
    matched: str
    match: MatchKind
    score: float
    description: str | None = None
    types: tuple[Ref, ...] = ()
    superclasses: tuple[Ref, ...] = ()
    property: PropertyInfo | None = None
    via: str | None = None


class SearchResult(ToolResult):
    """Entities, classes and properties whose names match a text."""

    query: str
    hits: tuple[SearchHit, ...] = ()
    index_size: int = 0


class ReverseProperty(BaseModel):
    """A property pointing at the entity (``?s p entity``), with how many subjects and a few of them."""

    model_config = _FROZEN

    property: Ref
    inverse: Ref | None = None
    value_count: int
    subjects: tuple[Value, ...] = ()


class LookupResult(ToolResult):
    """An entity's types and its outgoing properties, filtered by type compatibility.

    Attributes:
        entity: The entity and its preferred label.
        found: False when no triple mentions the entity.
        description: Its short description, if any.
        types: Its declared types (recorded in ``type_delta``).
        checked_types: The types compatibility was checked against (declared and Θ).
        mode: ``subclass`` or ``exact`` compatibility.
        kept: Properties shown, best first (also those cut from ``text`` by the caps).
        hidden: Properties hidden, with reasons.
        shown: How many of ``kept`` the text lists.
        incoming: A few properties pointing at the entity, when it has no outgoing ones.
        reverse: Incoming properties listed as reverse properties (dialects that show them).
        identifiers: Properties that are identifiers in other databases (the dialect's
            ``identifier_datatypes``), named without their values, smallest id number first.
        needs_prune_fallback: No type is known, so nothing was filtered; the agent graph
            may prune the neighbourhood with the model instead (the paper's LLMPrune).
    """

    entity: Ref
    found: bool
    description: str | None = None
    types: tuple[Ref, ...] = ()
    checked_types: tuple[Ref, ...] = ()
    mode: CompatibilityMode = "subclass"
    kept: tuple[KeptProperty, ...] = ()
    hidden: tuple[HiddenProperty, ...] = ()
    shown: int = 0
    incoming: tuple[Ref, ...] = ()
    reverse: tuple[ReverseProperty, ...] = ()
    identifiers: tuple[Ref, ...] = ()
    needs_prune_fallback: bool = False


class Example(BaseModel):
    """One triple using a property."""

    model_config = _FROZEN

    subject: Value
    object: Value


class PropertyExamplesResult(ToolResult):
    """A few real triples using a property, with its schema.

    Attributes:
        info: The property and its schema.
        found: False when no triple uses the property.
        examples: The triples, labelled.
        suggestions: Properties with a similar name, when it was not found.
    """

    info: PropertyInfo
    found: bool
    examples: tuple[Example, ...] = ()
    suggestions: tuple[SearchHit, ...] = ()


Value.model_rebuild()

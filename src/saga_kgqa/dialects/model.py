"""What differs per graph, as data: which predicates are statements, how values are detailed, where examples live.

A dialect is data plus a few queries (:mod:`saga_kgqa.dialects.neighbourhood`), not a
subclass per graph. The grounding tools read it to decide which outgoing predicates are
the entity's properties (Wikidata's truthy ``wdt:``; not labels or statement nodes), what
to show beside a value (Wikidata qualifiers through ``p:``/``ps:``/``pq:``; the second hop
of a Freebase compound value node), whether to list incoming edges as reverse
properties, and where property examples are recorded (Wikidata's P1855).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from saga_kgqa.config.context import DIALECT_ALIASES
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.core.profiles import WIKIDATA_PREFIXES
from saga_kgqa.schema.vocab import FREEBASE_NS, SchemaVocabulary

WIKIDATA_ENTITY = "http://www.wikidata.org/entity/"
WIKIDATA_DIRECT = "http://www.wikidata.org/prop/direct/"
WIKIDATA_CLAIM = "http://www.wikidata.org/prop/"
WIKIDATA_STATEMENT = "http://www.wikidata.org/prop/statement/"
WIKIDATA_QUALIFIER = "http://www.wikidata.org/prop/qualifier/"
WIKIDATA_PROPERTY_EXAMPLE = WIKIDATA_DIRECT + "P1855"
FREEBASE_MEDIATOR = FREEBASE_NS + "freebase.type_hints.mediator"
#: Wikibase's datatype of external identifiers (VIAF ID, IMDb ID, …).
WIKIBASE_EXTERNAL_ID = "http://wikiba.se/ontology#ExternalId"


@dataclass(frozen=True, slots=True)
class Dialect:
    """The per-graph data the grounding tools read.

    Attributes:
        name: ``rdf``, ``wikidata`` or ``freebase``.
        vocabulary: Type, hierarchy, label and description predicates.
        prefixes: Prefixes for compact ids (all known to the query guard's profile).
        property_namespaces: Outgoing predicates in these namespaces are the entity's
            properties; empty means every predicate except the vocabulary's own.
        alias_predicates: Predicates holding alternative names (searched, never listed).
        claim_namespace: Statement-node links (``p:P31``); with the two below, qualifiers are read.
        statement_namespace: The statement node's main value (``ps:P31``).
        qualifier_namespace: The statement node's qualifiers (``pq:P580``).
        compound_values: Expand values that are compound value (CVT) nodes one more hop.
        mediator_predicate: Marks a CVT type (``freebase.type_hints.mediator``); a nameless
            value with outgoing properties is treated as a CVT node as well.
        reverse_properties: List incoming edges as reverse properties.
        example_predicate: Links a property entity to example subjects (``wdt:P1855``).
        property_entity_namespace: Where a property's own entity lives (``wd:P57`` for ``wdt:P57``).
        graph_hierarchy: Read the superclasses of an entity's types from the graph (Wikidata's
            P279 lives in the data, not in a schema file) and check against them too.
        identifier_datatypes: Property datatypes (from the schema index) of identifiers in
            other databases; lookup names such properties on one line instead of listing
            them with values (a Wikidata person has dozens, SPINACH drops them outright).
    """

    name: str
    vocabulary: SchemaVocabulary = field(default_factory=SchemaVocabulary)
    prefixes: dict[str, str] = field(default_factory=dict)
    property_namespaces: tuple[str, ...] = ()
    alias_predicates: tuple[str, ...] = ()
    claim_namespace: str | None = None
    statement_namespace: str | None = None
    qualifier_namespace: str | None = None
    compound_values: bool = False
    mediator_predicate: str | None = None
    reverse_properties: bool = False
    example_predicate: str | None = None
    property_entity_namespace: str | None = None
    graph_hierarchy: bool = False
    identifier_datatypes: frozenset[str] = frozenset()

    def is_property(self, predicate: str) -> bool:
        """True when an outgoing predicate is one of the entity's properties (not a label or a statement link)."""
        if not self.property_namespaces:
            return True  # plain RDF: every predicate but the type predicates (lookup drops those)
        if predicate in self.vocabulary.meta_predicates() or predicate in self.alias_predicates:
            return False
        return predicate.startswith(self.property_namespaces)

    def property_entity(self, prop: str) -> str | None:
        """The entity describing a property (``wd:P57`` for ``wdt:P57``), where the dialect has one."""
        for namespace in self.property_namespaces:
            if self.property_entity_namespace and prop.startswith(namespace):
                return self.property_entity_namespace + prop.removeprefix(namespace)
        return None

    def statement_predicates(self, prop: str) -> tuple[str, str] | None:
        """The ``(p:, ps:)`` pair of a direct property, when statements carry qualifiers."""
        if not (self.claim_namespace and self.statement_namespace and prop.startswith(WIKIDATA_DIRECT)):
            return None
        pid = prop.removeprefix(WIKIDATA_DIRECT)
        return self.claim_namespace + pid, self.statement_namespace + pid

    def qualifier_property(self, qualifier: str) -> str:
        """The direct property a qualifier predicate stands for (``pq:P580`` → ``wdt:P580``), for schema labels."""
        if self.qualifier_namespace and qualifier.startswith(self.qualifier_namespace):
            return WIKIDATA_DIRECT + qualifier.removeprefix(self.qualifier_namespace)
        return qualifier


RDF_DIALECT = Dialect(name="generic")

WIKIDATA_DIALECT = Dialect(
    name="wikidata",
    vocabulary=SchemaVocabulary.wikidata(),
    prefixes=dict(WIKIDATA_PREFIXES),
    property_namespaces=(WIKIDATA_DIRECT,),
    alias_predicates=("http://www.w3.org/2004/02/skos/core#altLabel",),
    claim_namespace=WIKIDATA_CLAIM,
    statement_namespace=WIKIDATA_STATEMENT,
    qualifier_namespace=WIKIDATA_QUALIFIER,
    example_predicate=WIKIDATA_PROPERTY_EXAMPLE,
    property_entity_namespace=WIKIDATA_ENTITY,
    graph_hierarchy=True,
    identifier_datatypes=frozenset({WIKIBASE_EXTERNAL_ID}),
)

FREEBASE_DIALECT = Dialect(
    name="freebase",
    vocabulary=SchemaVocabulary.freebase(),
    prefixes={"ns": FREEBASE_NS},
    property_namespaces=(FREEBASE_NS,),
    alias_predicates=(FREEBASE_NS + "common.topic.alias",),
    compound_values=True,
    mediator_predicate=FREEBASE_MEDIATOR,
    reverse_properties=True,
)

DIALECTS: dict[str, Dialect] = {d.name: d for d in (RDF_DIALECT, WIKIDATA_DIALECT, FREEBASE_DIALECT)}


def get_dialect(name: str) -> Dialect:
    """Return the dialect called ``name`` (``generic``, ``wikidata`` or ``freebase``; ``rdf`` is ``generic``).

    Raises:
        ConfigurationError: No such dialect.
    """
    try:
        return DIALECTS[DIALECT_ALIASES.get(name, name)]
    except KeyError:
        raise ConfigurationError(f"unknown dialect {name!r}; known dialects: {', '.join(DIALECTS)}") from None

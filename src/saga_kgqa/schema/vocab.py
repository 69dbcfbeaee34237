"""IRIs of the vocabularies the schema index reads, and the built-in XSD datatype hierarchy."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
DCTERMS = "http://purl.org/dc/terms/"
SCHEMA_ORG = "http://schema.org/"

RDF_TYPE = RDF + "type"
RDF_PROPERTY = RDF + "Property"
RDF_FIRST = RDF + "first"
RDF_REST = RDF + "rest"
RDF_LANG_STRING = RDF + "langString"
RDFS_SUBCLASS_OF = RDFS + "subClassOf"
RDFS_DOMAIN = RDFS + "domain"
RDFS_RANGE = RDFS + "range"
RDFS_LABEL = RDFS + "label"
RDFS_COMMENT = RDFS + "comment"
RDFS_CLASS = RDFS + "Class"
RDFS_LITERAL = RDFS + "Literal"
RDFS_RESOURCE = RDFS + "Resource"
RDFS_DATATYPE = RDFS + "Datatype"
OWL_CLASS = OWL + "Class"
OWL_THING = OWL + "Thing"
OWL_UNION_OF = OWL + "unionOf"
OWL_OBJECT_PROPERTY = OWL + "ObjectProperty"
OWL_DATATYPE_PROPERTY = OWL + "DatatypeProperty"
XSD_STRING = XSD + "string"

WIKIDATA_INSTANCE_OF = "http://www.wikidata.org/prop/direct/P31"
WIKIDATA_SUBCLASS_OF = "http://www.wikidata.org/prop/direct/P279"

#: Freebase's namespace: every type, property and MID is ``ns:<dotted.id>``.
FREEBASE_NS = "http://rdf.freebase.com/ns/"
FREEBASE_TYPE = FREEBASE_NS + "type.object.type"
FREEBASE_NAME = FREEBASE_NS + "type.object.name"
# Freebase has no subclass predicate; "included types" (every instance of A is also a B)
# is the closest one in its dumps, and GrailQA's fb_types (meta.subclassOf) is read as it.
FREEBASE_INCLUDED_TYPES = FREEBASE_NS + "freebase.type_hints.included_types"

#: Default predicates for types and the class hierarchy (RDF graphs); Wikidata uses P31/P279.
DEFAULT_TYPE_PREDICATES: tuple[str, ...] = (RDF_TYPE,)
DEFAULT_SUBCLASS_PREDICATES: tuple[str, ...] = (RDFS_SUBCLASS_OF,)
DEFAULT_LABEL_PREDICATES: tuple[str, ...] = (RDFS_LABEL, SKOS + "prefLabel")
DEFAULT_DESCRIPTION_PREDICATES: tuple[str, ...] = (RDFS_COMMENT, SKOS + "definition", DCTERMS + "description")

#: Classes every resource belongs to: a domain naming one of them constrains nothing.
UNIVERSAL_CLASSES = frozenset({OWL_THING, RDFS_RESOURCE})

#: Namespaces of the modelling vocabularies themselves; their properties are never induced.
META_NAMESPACES: tuple[str, ...] = (RDF, RDFS, OWL)

# The XSD built-in derivation tree (XML Schema 1.1 Part 2, section 3), so that a value
# typed xsd:int satisfies a range of xsd:integer and every literal satisfies rdfs:Literal.
_XSD_PARENT_NAMES = {
    "integer": "decimal",
    "long": "integer",
    "int": "long",
    "short": "int",
    "byte": "short",
    "nonNegativeInteger": "integer",
    "positiveInteger": "nonNegativeInteger",
    "unsignedLong": "nonNegativeInteger",
    "unsignedInt": "unsignedLong",
    "unsignedShort": "unsignedInt",
    "unsignedByte": "unsignedShort",
    "nonPositiveInteger": "integer",
    "negativeInteger": "nonPositiveInteger",
    "normalizedString": "string",
    "token": "normalizedString",
    "language": "token",
    "Name": "token",
    "NCName": "Name",
    "NMTOKEN": "token",
    "dateTimeStamp": "dateTime",
    "dayTimeDuration": "duration",
    "yearMonthDuration": "duration",
}
_XSD_ROOTS = (
    "decimal",
    "string",
    "boolean",
    "float",
    "double",
    "duration",
    "dateTime",
    "time",
    "date",
    "gYearMonth",
    "gYear",
    "gMonthDay",
    "gDay",
    "gMonth",
    "hexBinary",
    "base64Binary",
    "anyURI",
    "QName",
    "NOTATION",
)

XSD_PARENTS: MappingProxyType[str, frozenset[str]] = MappingProxyType(
    {
        **{XSD + child: frozenset({XSD + parent}) for child, parent in _XSD_PARENT_NAMES.items()},
        **{XSD + root: frozenset({RDFS_LITERAL}) for root in _XSD_ROOTS},
        RDF_LANG_STRING: frozenset({RDFS_LITERAL}),
        RDF + "PlainLiteral": frozenset({RDFS_LITERAL}),
        RDF + "XMLLiteral": frozenset({RDFS_LITERAL}),
        RDF + "HTML": frozenset({RDFS_LITERAL}),
        RDF + "JSON": frozenset({RDFS_LITERAL}),
    }
)


#: XSD numeric datatypes; SPARQL compares them by value, and real data mixes them
#: (Spider4SPARQL's OWL says xsd:double where the data holds xsd:decimal).
NUMERIC_DATATYPES = frozenset(
    XSD + name
    for name in [
        "decimal",
        "float",
        "double",
        "integer",
        "long",
        "int",
        "short",
        "byte",
        "nonNegativeInteger",
        "positiveInteger",
        "unsignedLong",
        "unsignedInt",
        "unsignedShort",
        "unsignedByte",
        "nonPositiveInteger",
        "negativeInteger",
    ]
)


def local_name(iri: str) -> str:
    """The last segment of an IRI (after its last ``#``, ``/`` or ``:``, tried in that order); else the IRI."""
    for separator in ("#", "/", ":"):
        _head, found, tail = iri.rpartition(separator)
        if found and tail:
            return tail
    return iri


def is_datatype(iri: str) -> bool:
    """Return True when ``iri`` names a literal datatype rather than a class of resources."""
    return iri == RDFS_LITERAL or iri.startswith(XSD) or iri in XSD_PARENTS


def literal_type(datatype: str | None, lang: str | None) -> str:
    """Return the datatype IRI of a literal, filling in the implicit ``xsd:string`` and ``rdf:langString``."""
    if lang:
        return RDF_LANG_STRING
    return datatype or XSD_STRING


@dataclass(frozen=True, slots=True)
class SchemaVocabulary:
    """The predicates a graph uses for types, the class hierarchy, labels and domain/range.

    Builders and the type-state extraction take this instead of hard-coding RDFS, so a
    dialect (Wikidata P31/P279, Freebase ``type.object.type``) only changes the data.

    Attributes:
        type_predicates: Link an entity to its classes (``rdf:type``, ``wdt:P31``).
        subclass_predicates: Link a class to its superclasses (``rdfs:subClassOf``, ``wdt:P279``).
        label_predicates: Give a resource its human-readable name.
        description_predicates: Give a resource a short description.
        domain_predicates: Declare a property's domain.
        range_predicates: Declare a property's range.
    """

    type_predicates: tuple[str, ...] = DEFAULT_TYPE_PREDICATES
    subclass_predicates: tuple[str, ...] = DEFAULT_SUBCLASS_PREDICATES
    label_predicates: tuple[str, ...] = DEFAULT_LABEL_PREDICATES
    description_predicates: tuple[str, ...] = DEFAULT_DESCRIPTION_PREDICATES
    domain_predicates: tuple[str, ...] = (RDFS_DOMAIN,)
    range_predicates: tuple[str, ...] = (RDFS_RANGE,)

    @classmethod
    def wikidata(cls) -> SchemaVocabulary:
        """The vocabulary of Wikidata's truthy statements (P31 instance of, P279 subclass of)."""
        return cls(
            type_predicates=(WIKIDATA_INSTANCE_OF,),
            subclass_predicates=(WIKIDATA_SUBCLASS_OF,),
            label_predicates=(RDFS_LABEL,),
            description_predicates=(SCHEMA_ORG + "description",),
        )

    @classmethod
    def freebase(cls) -> SchemaVocabulary:
        """The vocabulary of Freebase (``type.object.type``, ``type.object.name``, ``type.property.schema``)."""
        return cls(
            type_predicates=(FREEBASE_TYPE,),
            subclass_predicates=(FREEBASE_INCLUDED_TYPES,),
            label_predicates=(FREEBASE_NAME,),
            description_predicates=(FREEBASE_NS + "common.topic.description",),
            domain_predicates=(FREEBASE_NS + "type.property.schema",),
            range_predicates=(FREEBASE_NS + "type.property.expected_type",),
        )

    def display_predicates(self) -> tuple[str, ...]:
        """Predicates whose object only names or describes its subject (labels, then descriptions)."""
        return self.label_predicates + self.description_predicates

    def meta_predicates(self) -> frozenset[str]:
        """Predicates that describe the schema itself; empirical induction skips them."""
        return frozenset(
            self.type_predicates
            + self.subclass_predicates
            + self.label_predicates
            + self.description_predicates
            + self.domain_predicates
            + self.range_predicates
        )

"""The Wikidata schema index the paper's way: property constraints (P2302) read from any endpoint.

Wikidata states a property's domain and range as constraint statements on the property
entity, in the RDF layout ``wd:P57 p:P2302 ?st . ?st ps:P2302 wd:Q21503250`` (subject
type constraint) or ``wd:Q21510865`` (value type constraint), with the allowed classes
as ``pq:P2308`` qualifiers (several values are a union) and the required relation as a
``pq:P2309`` qualifier:

* ``wd:Q21503252`` instance of: the subject's P31 types must reach a class (the RDFS reading);
* ``wd:Q21514624`` subclass of: the subject must itself be a subclass (P279) of a class;
* ``wd:Q30208840`` instance or subclass of: either.

The relation is stored per side (:attr:`PropertySchema.domain_relation`) and applied by
:func:`~saga_kgqa.schema.compatibility.check_relation_constraint`. A statement without
P2309 is read as "instance of", the reading of Wikidata's own constraint checker for a
missing relation. Several constraint statements on one side are read as one union; when
their relations differ the side becomes "instance or subclass of", the permissive choice.
Deprecated constraint statements are skipped, and a statement whose class is not an IRI
(``somevalue``) makes that side unknown rather than wrongly narrow.

One query template reads everything about the properties (labels, descriptions,
datatypes and both constraints), a page of properties at a time, so that no property is
split across pages. A second, batched template reads the labels and direct superclasses
(P279) of the constraint classes, so that a value typed with a broader class is
recognised; the ancestors of an entity's own types are the caller's to supply.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from dataclasses import dataclass, field

from saga_kgqa.errors import ConfigurationError, QueryRejected
from saga_kgqa.kg.core.backend import KGBackend
from saga_kgqa.kg.core.result import Row
from saga_kgqa.kg.guard.sparql_terms import string_literal
from saga_kgqa.schema.compatibility import ConstraintRelation
from saga_kgqa.schema.model import ClassInfo, PropertySchema, SchemaIndex
from saga_kgqa.schema.queries import TemplateRunner, batched, values_clause
from saga_kgqa.schema.vocab import SchemaVocabulary

logger = logging.getLogger(__name__)

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
WIKIBASE = "http://wikiba.se/ontology#"
SUBJECT_TYPE_CONSTRAINT = WD + "Q21503250"
VALUE_TYPE_CONSTRAINT = WD + "Q21510865"
RELATIONS: dict[str, ConstraintRelation] = {
    WD + "Q21503252": "instance",
    WD + "Q21514624": "subclass",
    WD + "Q30208840": "instance_or_subclass",
}
#: The origin recorded on every domain and range read from constraint statements.
P2302_ORIGIN = "wikidata:P2302"

# Rows per property a page may return before the page is cut short: label x description x
# constraint classes; real properties stay far below it (the widest unions have ~60 classes).
_ROWS_PER_PROPERTY = 200

_LANGUAGE_TAG = re.compile(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*")
_CONSTRAINT_QUERY = """PREFIX wikibase: <http://wikiba.se/ontology#>
PREFIX wd: <http://www.wikidata.org/entity/>
PREFIX p: <http://www.wikidata.org/prop/>
PREFIX ps: <http://www.wikidata.org/prop/statement/>
PREFIX pq: <http://www.wikidata.org/prop/qualifier/>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX schema: <http://schema.org/>
SELECT ?property ?propertyType ?label ?description ?statement ?constraint ?class ?relation WHERE {{
  {{ SELECT ?property WHERE {{ ?property a wikibase:Property }} ORDER BY ?property LIMIT {page_size} OFFSET {offset} }}
  OPTIONAL {{ ?property wikibase:propertyType ?propertyType }}
  OPTIONAL {{ ?property rdfs:label ?label FILTER(LANG(?label) = {language}) }}
  OPTIONAL {{ ?property schema:description ?description FILTER(LANG(?description) = {language}) }}
  OPTIONAL {{
    ?property p:P2302 ?statement .
    ?statement ps:P2302 ?constraint .
    FILTER(?constraint IN (wd:Q21503250, wd:Q21510865))
    FILTER NOT EXISTS {{ ?statement wikibase:rank wikibase:DeprecatedRank }}
    OPTIONAL {{ ?statement pq:P2308 ?class }}
    OPTIONAL {{ ?statement pq:P2309 ?relation }}
  }}
}}"""


_CLASS_QUERY = """PREFIX wdt: <http://www.wikidata.org/prop/direct/>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?class ?label ?parent WHERE {{
  {values}
  OPTIONAL {{ ?class rdfs:label ?label FILTER(LANG(?label) = {language}) }}
  OPTIONAL {{ ?class wdt:P279 ?parent FILTER(isIRI(?parent)) }}
}}"""
# Classes per class query; their IRIs must fit in a GET URL or a modest POST body.
_CLASS_BATCH = 200
# Rows per class a batch may return: label x direct superclasses.
_ROWS_PER_CLASS = 50


def constraint_query(*, page_size: int, offset: int, language: str = "en") -> str:
    """Return the constraint query for one page of properties (without its outer LIMIT).

    Args:
        page_size: Properties per page.
        offset: Properties skipped (a multiple of ``page_size``).
        language: Language of labels and descriptions.

    Raises:
        QueryRejected: ``language`` is not a language tag.
        ConfigurationError: ``page_size`` or ``offset`` is out of range.
    """
    if page_size < 1 or offset < 0:
        raise ConfigurationError(f"page_size must be positive and offset non-negative, got {page_size}, {offset}")
    if not _LANGUAGE_TAG.fullmatch(language):
        raise QueryRejected(f"not a language tag: {language[:40]!r}", reason="bad_literal")
    return _CONSTRAINT_QUERY.format(page_size=page_size, offset=offset, language=string_literal(language.lower()))


@dataclass(slots=True)
class _Statement:
    side: str
    classes: set[str] = field(default_factory=set)
    relations: set[str] = field(default_factory=set)
    unreadable: bool = False


@dataclass(slots=True)
class _PropertyRows:
    datatype: str | None = None
    label: str | None = None
    description: str | None = None
    statements: dict[str, _Statement] = field(default_factory=dict)


def build_wikidata_constraint_index(
    backend: KGBackend,
    *,
    page_size: int = 500,
    max_properties: int = 20_000,
    language: str = "en",
    deadline_s: float = 60.0,
) -> SchemaIndex:
    """Read every property's label, description, datatype and type constraints from a Wikidata endpoint.

    Args:
        backend: A Wikidata-shaped store or endpoint (WDQS, QLever, a local mirror).
        page_size: Properties read per query.
        max_properties: Stop after this many properties (a note says so).
        language: Language of labels and descriptions.
        deadline_s: Budget of each query.

    Returns:
        An index keyed by the direct-property IRIs (``wdt:P57``), with P2302 domains and
        ranges marked ``formal`` and origin ``wikidata:P2302``; properties without a
        constraint stay unconstrained (see :func:`saga_kgqa.schema.merge.fill_missing`
        to add induced ones).

    Raises:
        BackendError: The endpoint failed (typed, see :mod:`saga_kgqa.errors`).
    """
    runner = TemplateRunner(backend, deadline_s=deadline_s)
    found: dict[str, _PropertyRows] = {}
    offset = 0
    while offset < max_properties:
        size = min(page_size, max_properties - offset)
        limit = size * _ROWS_PER_PROPERTY
        rows = runner.select(
            constraint_query(page_size=size, offset=offset, language=language),
            limit=limit,
            what=f"property constraints (page at {offset})",
        )
        page: set[str] = set()
        for row in rows:
            entity = row["property"].value
            page.add(entity)
            _absorb(found.setdefault(_direct_property(entity), _PropertyRows()), row)
        # A short page is the last one, unless the row limit cut it short (noted by the runner).
        if len(page) < size and len(rows) < limit:
            break
        offset += size
    else:
        runner.notes.append(f"stopped after {max_properties} properties; the index may be incomplete")
    properties = {prop: _entry(prop, rows) for prop, rows in sorted(found.items())}
    classes = _read_classes(
        runner, sorted({c for entry in properties.values() for c in entry.domain | entry.range}), language
    )
    logger.info("P2302 index: %d properties in %d queries", len(properties), runner.queries)
    vocabulary = SchemaVocabulary.wikidata()
    return SchemaIndex(
        endpoint_id=backend.endpoint_id,
        type_predicates=vocabulary.type_predicates,
        subclass_predicates=vocabulary.subclass_predicates,
        properties=properties,
        classes=classes,
        notes=tuple(runner.notes),
    )


def _read_classes(runner: TemplateRunner, classes: list[str], language: str) -> dict[str, ClassInfo]:
    """Labels and direct P279 superclasses of the constraint classes, a batch at a time."""
    labels: dict[str, str] = {}
    parents: dict[str, set[str]] = defaultdict(set)
    literal = string_literal(language.lower())
    for batch in batched(classes, _CLASS_BATCH):
        rows = runner.select(
            _CLASS_QUERY.format(values=values_clause("class", batch), language=literal),
            limit=len(batch) * _ROWS_PER_CLASS,
            what="labels and superclasses of constraint classes",
        )
        for row in rows:
            cls = row["class"].value
            if "label" in row:
                labels[cls] = row["label"].value
            if "parent" in row:
                parents[cls].add(row["parent"].value)
    return {c: ClassInfo(iri=c, label=labels.get(c), parents=frozenset(parents.get(c, ()))) for c in classes}


def _direct_property(entity_iri: str) -> str:
    """``wd:P57`` (the property entity) to ``wdt:P57`` (the truthy predicate queries use)."""
    return WDT + entity_iri.rpartition("/")[2]


def _absorb(target: _PropertyRows, row: Row) -> None:
    value = row.get
    if (datatype := value("propertyType")) is not None:
        target.datatype = datatype.value
    if (label := value("label")) is not None:
        target.label = label.value
    if (description := value("description")) is not None:
        target.description = description.value
    statement, constraint = value("statement"), value("constraint")
    if statement is None or constraint is None:
        return
    side = "domain" if constraint.value == SUBJECT_TYPE_CONSTRAINT else "range"
    entry = target.statements.setdefault(statement.value, _Statement(side=side))
    cls = value("class")
    if cls is None or cls.kind != "uri":
        entry.unreadable = True
    else:
        entry.classes.add(cls.value)
    if (relation := value("relation")) is not None:
        entry.relations.add(relation.value)


def _entry(prop: str, rows: _PropertyRows) -> PropertySchema:
    sides: dict[str, tuple[frozenset[str], ConstraintRelation]] = {}
    grouped: dict[str, list[_Statement]] = defaultdict(list)
    for statement in rows.statements.values():
        grouped[statement.side].append(statement)
    for side, statements in grouped.items():
        if any(s.unreadable for s in statements):
            continue  # one unreadable alternative: the union is unknown, never narrower than the truth
        classes = frozenset(c for s in statements for c in s.classes)
        relations = {_relation(s.relations) for s in statements}
        sides[side] = (classes, relations.pop() if len(relations) == 1 else "instance_or_subclass")
    domain, domain_relation = sides.get("domain", (frozenset(), "instance"))
    range_, range_relation = sides.get("range", (frozenset(), "instance"))
    return PropertySchema(
        iri=prop,
        label=rows.label,
        description=rows.description,
        datatype=rows.datatype,
        domain=domain,
        range=range_,
        domain_source="formal" if domain else "none",
        range_source="formal" if range_ else "none",
        domain_origins=(P2302_ORIGIN,) if domain else (),
        range_origins=(P2302_ORIGIN,) if range_ else (),
        domain_relation=domain_relation,
        range_relation=range_relation,
    )


def _relation(values: set[str]) -> ConstraintRelation:
    """One statement's relation; a missing or unknown P2309 reads as instance of, two as either."""
    known = {RELATIONS[v] for v in values if v in RELATIONS}
    if not known:
        return "instance"
    return known.pop() if len(known) == 1 else "instance_or_subclass"

"""Reading the formal schema a graph declares about itself.

That is ``rdfs:domain``/``rdfs:range`` (with ``owl:unionOf``), ``rdfs:subClassOf``, declared
classes and properties, labels and descriptions.

Several domain statements on one property are read as a union, not as the RDFS
intersection: ontologies in the wild mostly mean "any of these", and a union only ever
keeps more properties, which is the safe direction for grounding.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from saga_kgqa.errors import QueryTimeout
from saga_kgqa.kg.core.result import Row
from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.schema.queries import TemplateRunner, batched, path_alternative, values_clause
from saga_kgqa.schema.vocab import (
    OWL,
    OWL_CLASS,
    OWL_DATATYPE_PROPERTY,
    OWL_OBJECT_PROPERTY,
    OWL_UNION_OF,
    RDF_FIRST,
    RDF_PROPERTY,
    RDF_REST,
    RDF_TYPE,
    RDFS_CLASS,
    SchemaVocabulary,
)

_PROPERTY_KINDS = (OWL_OBJECT_PROPERTY, OWL_DATATYPE_PROPERTY, RDF_PROPERTY, OWL + "AnnotationProperty")
_CLASS_KINDS = (OWL_CLASS, RDFS_CLASS)
_LABEL_BATCH = 200


@dataclass(slots=True)
class FormalSchema:
    """Formal declarations read from the graph, before they become index entries.

    Attributes:
        domains: Declared domain classes per property.
        ranges: Declared range classes or datatypes per property.
        property_kinds: Declared ``rdf:type`` of each property (``owl:ObjectProperty``, ...).
        parents: Direct superclasses per class.
        classes: Classes declared as ``owl:Class`` / ``rdfs:Class``.
        unreadable: Properties with a domain or range we could not represent (for example
            an ``owl:intersectionOf`` blank node); that side is left unknown.
    """

    domains: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    ranges: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    property_kinds: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    parents: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    classes: set[str] = field(default_factory=set)
    unreadable: set[str] = field(default_factory=set)

    def properties(self) -> set[str]:
        """Every property the formal schema mentions."""
        return set(self.domains) | set(self.ranges) | set(self.property_kinds)


def read_formal_schema(runner: TemplateRunner, vocabulary: SchemaVocabulary, *, max_rows: int) -> FormalSchema:
    """Read domains, ranges, the class hierarchy and declared classes and properties.

    Args:
        runner: Sends the bounded template queries.
        vocabulary: Which predicates declare domains, ranges and subclasses.
        max_rows: LIMIT of each query (a note is recorded when it is reached).

    Returns:
        The declarations found; empty when the graph carries no schema.
    """
    schema = FormalSchema()
    for side, predicates, target in (
        ("domain", vocabulary.domain_predicates, schema.domains),
        ("range", vocabulary.range_predicates, schema.ranges),
    ):
        if predicates:
            _read_constraints(runner, predicates, target, schema.unreadable, side=side, max_rows=max_rows)
    if vocabulary.subclass_predicates:
        rows = runner.select(
            f"SELECT ?c ?super WHERE {{ ?c {path_alternative(vocabulary.subclass_predicates)} ?super "
            "FILTER(isIRI(?c) && isIRI(?super)) }",
            limit=max_rows,
            what="subclass axioms",
        )
        for row in rows:
            schema.parents[row["c"].value].add(row["super"].value)
    rows = runner.select(
        f"SELECT DISTINCT ?c WHERE {{ {values_clause('kind', _CLASS_KINDS)} ?c {iri(RDF_TYPE)} ?kind "
        "FILTER(isIRI(?c)) }",
        limit=max_rows,
        what="declared classes",
    )
    schema.classes.update(row["c"].value for row in rows)
    rows = runner.select(
        f"SELECT ?p ?kind WHERE {{ {values_clause('kind', _PROPERTY_KINDS)} ?p {iri(RDF_TYPE)} ?kind "
        "FILTER(isIRI(?p)) }",
        limit=max_rows,
        what="declared properties",
    )
    for row in rows:
        schema.property_kinds[row["p"].value].add(row["kind"].value)
    return schema


def _read_constraints(
    runner: TemplateRunner,
    predicates: tuple[str, ...],
    target: dict[str, set[str]],
    unreadable: set[str],
    *,
    side: str,
    max_rows: int,
) -> None:
    """Read one side (domain or range), expanding ``owl:unionOf`` lists into their members."""
    members_path = f"{iri(OWL_UNION_OF)}/{iri(RDF_REST)}*/{iri(RDF_FIRST)}"
    rows = runner.select(
        f"SELECT ?p ?c ?member WHERE {{ ?p {path_alternative(predicates)} ?c FILTER(isIRI(?p)) "
        f"OPTIONAL {{ ?c {members_path} ?member FILTER(isIRI(?member)) }} }}",
        limit=max_rows,
        what=f"{side} declarations",
    )
    expanded: dict[tuple[str, str], set[str]] = defaultdict(set)
    for row in rows:
        prop, constraint = row["p"].value, row["c"]
        if constraint.kind == "uri":
            target[prop].add(constraint.value)
        elif "member" in row:
            expanded[(prop, constraint.value)].add(row["member"].value)
        else:
            expanded.setdefault((prop, constraint.value), set())
    unrepresentable = set()
    for (prop, _node), members in expanded.items():
        if members:
            target[prop].update(members)
        else:
            unrepresentable.add(prop)
    # A union with a member we cannot represent is wider than what we read: leave it unknown.
    for prop in unrepresentable:
        target.pop(prop, None)
    if unrepresentable:
        runner.notes.append(f"{len(unrepresentable)} {side} declarations are not IRIs or unions; left unknown")
    unreadable.update(unrepresentable)


@dataclass(frozen=True, slots=True)
class Description:
    """The preferred label and description of one resource."""

    label: str | None = None
    description: str | None = None


def read_descriptions(
    runner: TemplateRunner,
    iris: Iterable[str],
    vocabulary: SchemaVocabulary,
    *,
    language: str = "en",
) -> dict[str, Description]:
    """Read labels and descriptions of many resources in batches of VALUES.

    A batch that times out is skipped with a note.

    English (or ``language``) is preferred, then untagged text, then any other language;
    ties are broken by the text itself so the choice is deterministic.
    """
    wanted = sorted(set(iris))
    found: dict[str, Description] = {}
    if not wanted or not (vocabulary.label_predicates or vocabulary.description_predicates):
        return found
    branches = []
    if vocabulary.label_predicates:
        branches.append(f'{{ ?x {path_alternative(vocabulary.label_predicates)} ?text BIND("label" AS ?kind) }}')
    if vocabulary.description_predicates:
        branches.append(
            f'{{ ?x {path_alternative(vocabulary.description_predicates)} ?text BIND("description" AS ?kind) }}'
        )
    for batch in batched(wanted, _LABEL_BATCH):
        try:
            rows = runner.select(
                f"SELECT ?x ?kind ?text WHERE {{ {values_clause('x', batch)} {' UNION '.join(branches)} "
                "FILTER(isLiteral(?text)) }",
                limit=len(batch) * 20,
                what="labels and descriptions",
            )
        except QueryTimeout:
            # Labels only decorate the index; losing a batch must not lose the schema.
            runner.notes.append(f"labels of {len(batch)} resources: timed out; left without labels")
            continue
        for resource, description in _best_texts(rows, language).items():
            found[resource] = description
    return found


def _best_texts(rows: list[Row], language: str) -> dict[str, Description]:
    def rank(lang: str | None, text: str) -> tuple[int, str]:
        if lang and lang.lower().split("-")[0] == language:
            return (0, text)
        return (1, text) if not lang else (2, text)

    best: dict[tuple[str, str], tuple[tuple[int, str], str]] = {}
    for row in rows:
        key = (row["x"].value, row["kind"].value)
        text = row["text"]
        candidate = (rank(text.lang, text.value), text.value)
        if key not in best or candidate[0] < best[key][0]:
            best[key] = candidate
    out: dict[str, Description] = {}
    for resource in {key[0] for key in best}:
        label = best.get((resource, "label"))
        description = best.get((resource, "description"))
        out[resource] = Description(
            label=label[1] if label else None,
            description=description[1] if description else None,
        )
    return out

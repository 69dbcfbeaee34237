"""What a bounded live survey of one source found (AutoSchema's live index, its appendix A.1).

A survey is sampled evidence, not an ontology: the classes it lists are the most used
ones within its limits, and a class or property it does not list may still exist. The
model keeps, besides the :class:`~saga_kgqa.schema.model.SchemaIndex` built from it
(source ``surveyed``), what the source summary shows a model: object kinds, example
values, the named graphs, one executable example query per class, and what was not
covered (limits reached, probes that failed).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from saga_kgqa.schema.model import SchemaIndex, TypeCount

#: Version of the JSON layout of a cached survey; bump on incompatible change.
SURVEY_FORMAT_VERSION = 2

ObjectKind = Literal["iri", "literal", "lang", "bnode"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class SurveyLimits(BaseModel):
    """The bounds of one survey; whatever the graph's size, it sends at most :meth:`max_requests` queries.

    Attributes:
        max_classes: Classes surveyed, the most instantiated first (the paper: 25).
        max_properties: Outgoing properties surveyed per class, the most used first (40).
        max_instances: Instances sampled per class for property discovery (300).
        beyond_instances: Instances of a class read for the properties its sample missed (10,000): the read
            that used to cover every instance grew with the class (a tenth of ``saga load``'s surplus at 10M
            triples, issue 39).
        example_instances: Instances whose triples give the example values.
        examples_per_property: Example values kept per property.
        max_concurrency: Probes in flight at once (the endpoint profile may allow fewer).
        deadline_s: Wall-clock budget of each probe.
        total_s: Wall-clock budget of the whole survey (5 minutes: a few dozen polite queries to a
            public endpoint such as WDQS); probes not sent in time are listed as skipped.
        support: Share of the typed sampled objects a type needs to enter a range.
    """

    model_config = _FROZEN

    max_classes: int = Field(default=25, ge=1, le=500)
    max_properties: int = Field(default=40, ge=1, le=500)
    max_instances: int = Field(default=300, ge=1, le=10_000)
    beyond_instances: int = Field(default=10_000, ge=1, le=10_000_000)
    example_instances: int = Field(default=5, ge=1, le=100)
    examples_per_property: int = Field(default=3, ge=0, le=20)
    max_concurrency: int = Field(default=4, ge=1, le=32)
    deadline_s: float = Field(default=20.0, gt=0)
    total_s: float = Field(default=300.0, gt=0)
    support: float = Field(default=0.05, ge=0.0, le=1.0)

    def max_requests(self) -> int:
        """The most queries a survey with these limits sends (8 for the source, 6 per class).

        The source's: named graphs, the class ranking, its count or unranked fallback,
        superclasses, and an ontology's three (blank-node structures, hierarchy, restrictions),
        with room to spare.
        """
        return 8 + 6 * self.max_classes


class KindCount(BaseModel):
    """How many sampled objects of a property were of one kind."""

    model_config = _FROZEN

    kind: ObjectKind
    count: int = Field(ge=0)


class SurveyedProperty(BaseModel):
    """One outgoing property of one surveyed class.

    Attributes:
        iri: The property.
        instances_using: Sampled instances of the class that use it.
        object_kinds: Distinct sampled objects per kind (IRI, literal, language-tagged, blank node).
        object_types: Classes of IRI objects and datatypes of literals, most frequent first.
        untyped_objects: Sampled IRI or blank-node objects with no type.
        examples: A few sampled objects, in N-Triples form (IRIs and literals as written).
    """

    model_config = _FROZEN

    iri: str
    instances_using: int = Field(ge=0)
    object_kinds: tuple[KindCount, ...] = ()
    object_types: tuple[TypeCount, ...] = ()
    untyped_objects: int = Field(default=0, ge=0)
    examples: tuple[str, ...] = ()


class ExampleQuery(BaseModel):
    """An executable query for one class, run through the guard once when surveyed.

    Attributes:
        sparql: The query text.
        ran: The query passed the guard and the source answered it.
        rows: Rows it returned then.
        error: Why it did not run, when it did not.
    """

    model_config = _FROZEN

    sparql: str
    ran: bool
    rows: int = Field(default=0, ge=0)
    error: str | None = None


class SurveyedClass(BaseModel):
    """One surveyed class.

    Attributes:
        iri: The class.
        instances: Its instance count, as the source counted it.
        sampled: Instances sampled for property discovery.
        properties: Its outgoing properties, the most used first.
        example_instances: A few instance IRIs (never blank nodes).
        graphs: Named graphs holding its type triples (empty: default graph or not probed).
        example_query: The checked example query.
    """

    model_config = _FROZEN

    iri: str
    instances: int = Field(ge=0)
    sampled: int = Field(ge=0)
    properties: tuple[SurveyedProperty, ...] = ()
    example_instances: tuple[str, ...] = ()
    graphs: tuple[str, ...] = ()
    example_query: ExampleQuery | None = None


class RelationExample(BaseModel):
    """A relation property of an ontology: how many restrictions use it, and one ``term prop filler`` example."""

    model_config = _FROZEN

    property: str
    uses: int = Field(ge=0)
    term: str | None = None
    filler: str | None = None


class OntologyProfile(BaseModel):
    """What a survey says of a graph whose entities are ontology terms (``owl:Class``, ``rdfs:Class``).

    Attributes:
        terms: Terms (IRIs typed by a class of the modelling vocabularies' term classes).
        depth: Longest ``rdfs:subClassOf`` chain between named terms (``None``: not read).
        hierarchy_edges: Subclass links between named terms that were read.
        annotation_properties: Literal-valued properties of the terms, the most used first.
        relation_properties: Properties restrictions are on (``owl:onProperty``), the most used first.
        structures: Properties of untyped blank nodes the terms reach (lists, fillers, facets).
    """

    model_config = _FROZEN

    terms: int = Field(ge=0)
    depth: int | None = None
    hierarchy_edges: int = Field(default=0, ge=0)
    annotation_properties: tuple[str, ...] = ()
    relation_properties: tuple[RelationExample, ...] = ()
    structures: tuple[str, ...] = ()


class ProbeFailure(BaseModel):
    """A probe that failed or was not sent; the survey went on without it."""

    model_config = _FROZEN

    what: str
    error: str


class SourceSurvey(BaseModel):
    """A bounded survey of one source, with the schema index built from it.

    Attributes:
        format_version: Layout version of the cached JSON.
        source: The source's catalog name.
        endpoint_id: The backend's stable id (a different store is a different survey).
        graphs: The named graphs the survey was scoped to (empty: the default dataset).
        built_at: When it was built (ISO 8601, UTC).
        limits: The limits it ran with.
        named_graphs: Named graphs the source lists (first ones only).
        class_count: Distinct classes in the source, when it could count them.
        classes: The surveyed classes, the most instantiated first.
        failures: Probes that failed or were not sent.
        requests: Queries sent.
        seconds: Wall-clock time of the survey.
        index: The schema index built from the evidence (domains and ranges ``surveyed``).
        ontology: Set when most typed subjects are ontology terms: the terms were surveyed as
            the graph's entities, and this profile describes the ontology.
    """

    model_config = _FROZEN

    format_version: int = SURVEY_FORMAT_VERSION
    source: str
    endpoint_id: str
    graphs: tuple[str, ...] = ()
    built_at: str
    limits: SurveyLimits
    named_graphs: tuple[str, ...] = ()
    class_count: int | None = None
    classes: tuple[SurveyedClass, ...] = ()
    failures: tuple[ProbeFailure, ...] = ()
    ontology: OntologyProfile | None = None
    requests: int = Field(default=0, ge=0)
    seconds: float = Field(default=0.0, ge=0)
    index: SchemaIndex

    @property
    def partial(self) -> bool:
        """Whether probes failed or were skipped (deadline, budget, misbehaving source): not a complete survey."""
        return bool(self.failures)

    def coverage(self) -> tuple[str, ...]:
        """Plain sentences on what the survey did not cover; never read as absence from the graph."""
        lines = [
            f"surveyed {len(self.classes)} classes"
            + (f" of {self.class_count}" if self.class_count is not None else "")
            + f" (at most {self.limits.max_classes}, {self.limits.max_properties} properties each, "
            f"{self.limits.max_instances} sampled instances per class), {self.requests} requests"
        ]
        if self.class_count is not None and self.class_count > len(self.classes):
            lines.append(f"{self.class_count - len(self.classes)} less used classes were not surveyed")
        full = [c.iri for c in self.classes if len(c.properties) >= self.limits.max_properties]
        if full:
            lines.append(f"{len(full)} classes reached the property limit; their rarer properties are not listed")
        past = [c.iri for c in self.classes if c.instances > self.limits.beyond_instances]
        if past:
            lines.append(
                f"{len(past)} classes have over {self.limits.beyond_instances} instances: a property only their "
                "later instances use is not listed"
            )
        if self.partial:
            lines.append(f"partial survey: {len(self.failures)} probes failed or were skipped; it is retried soon")
        lines.extend(f"not covered: {failure.what} ({failure.error})" for failure in self.failures)
        lines.append("a class or property missing here may still exist in the source")
        return tuple(lines)

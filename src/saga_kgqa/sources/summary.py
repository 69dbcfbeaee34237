"""Source summary (AutoSchema's ``get_rdf_schema``): what a model needs to query one source.

Classes with their instance counts, the predicates of each with object kinds and types,
examples, the named-graph scope, the checked example query, and what the survey did not
cover. It reads the cached survey (no query when the survey is cached). The text is
capped at :data:`RESULT_CHARS` (the paper caps tool results at 6,000 characters): each
class's detail is shortened before a class is dropped (:mod:`saga_kgqa.sources.summary_text`).
"""

from __future__ import annotations

from collections.abc import Mapping

from saga_kgqa.schema.survey_model import OntologyProfile, RelationExample, SourceSurvey, SurveyedClass
from saga_kgqa.schema.vocab import local_name as _local
from saga_kgqa.sources import summary_text
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.sources.summary_model import ClassSummary, PropertyLine, SourceSummary
from saga_kgqa.text_safety import graph_text
from saga_kgqa.tools.render import compact_iri

#: Characters of one grounding tool result shown to a model (AutoSchema, appendix A.3).
RESULT_CHARS = 6000
_TYPES_SHOWN = 3
_ANNOTATIONS_SHOWN = 12
_RELATIONS_SHOWN = 5

__all__ = [
    "RESULT_CHARS",
    "ClassSummary",
    "PropertyLine",
    "SourceSummary",
    "derived_description",
    "derived_title",
    "render_summary",
    "source_summary",
]


def derived_title(survey: SourceSurvey) -> str:
    """A title from the most instantiated classes, for a source whose record has none."""
    names = [_local(c.iri) for c in survey.classes[:3]]
    return f"graph of {', '.join(names)}" if names else f"graph {survey.source}"


def derived_description(survey: SourceSurvey) -> str:
    """A description from the surveyed classes and their most used properties."""
    if survey.ontology is not None:
        # The ontology's own lines say the rest; the kinds of terms by name are enough here.
        depth = f", hierarchy depth {survey.ontology.depth}" if survey.ontology.depth is not None else ""
        kinds = ", ".join(f"{_local(c.iri)} ({c.instances})" for c in survey.classes[:6])
        return f"ontology of {survey.ontology.terms} terms{depth}; {kinds}" + (
            " (partial survey)" if survey.partial else ""
        )
    parts = []
    for cls in survey.classes[:6]:
        props = ", ".join(_local(p.iri) for p in cls.properties[:4])
        parts.append(
            f"{_local(cls.iri)} ({cls.instances}; {props})" if props else f"{_local(cls.iri)} ({cls.instances})"
        )
    if not parts:
        # A survey whose probes failed found nothing because it could not look: never "no classes".
        return "survey incomplete: the source failed to answer" if survey.partial else "no classes found by the survey"
    return "classes: " + "; ".join(parts) + (" (partial survey)" if survey.partial else "")


def source_summary(sources: SourceSet, source: str, *, refresh: bool = False) -> SourceSummary:
    """Summarise one source from its (cached) survey.

    Args:
        sources: The operator's sources.
        source: The source's name.
        refresh: Rebuild the survey first.

    Raises:
        UnknownName: No source has that name.
        BackendError: The survey could not start (a failed probe is recorded, not raised).
    """
    opened = sources.get(source)
    survey = opened.survey(refresh=refresh)
    prefixes = opened.prefixes
    record = opened.record
    summary = SourceSummary(
        source=opened.name,
        title=record.title or derived_title(survey),
        description=record.description or derived_description(survey),
        declared_schema=opened.declared,
        built_at=survey.built_at,
        graphs=survey.graphs,
        named_graphs=survey.named_graphs,
        classes=tuple(_class(cls, prefixes) for cls in survey.classes),
        coverage=survey.coverage(),
        ontology=ontology_lines(survey.ontology, prefixes) if survey.ontology is not None else (),
    )
    return summary.model_copy(update={"text": render_summary(summary)})


def ontology_lines(profile: OntologyProfile, prefixes: Mapping[str, str]) -> tuple[str, ...]:
    """An ontology described as one: its terms are the entities, its hierarchy is data."""
    depth = (
        f", hierarchy depth {profile.depth} over {profile.hierarchy_edges} rdfs:subClassOf links"
        if profile.depth
        else ""
    )
    lines = [
        f"ontology: {profile.terms} terms (owl:Class / rdfs:Class){depth}. The terms are the entities: find them "
        "by label or synonym, walk the hierarchy with rdfs:subClassOf (or rdfs:subClassOf*), not rdf:type"
    ]
    if profile.annotation_properties:
        names = ", ".join(compact_iri(p, prefixes) for p in profile.annotation_properties[:_ANNOTATIONS_SHOWN])
        lines.append(f"annotation properties of the terms: {names}")
    if profile.relation_properties:
        # One example is enough to show the pattern; the rest by name and count.
        shown = profile.relation_properties[:_RELATIONS_SHOWN]
        lines.append(
            "relation properties (owl:Restriction, owl:onProperty): "
            + "; ".join(_relation(r, prefixes, example=i == 0) for i, r in enumerate(shown))
            + (
                f" (+{len(profile.relation_properties) - len(shown)} more)"
                if len(profile.relation_properties) > len(shown)
                else ""
            )
        )
    if profile.structures:
        lines.append(f"blank-node structures use: {', '.join(compact_iri(p, prefixes) for p in profile.structures)}")
    return tuple(lines)


def _relation(relation: RelationExample, prefixes: Mapping[str, str], *, example: bool) -> str:
    prop = compact_iri(relation.property, prefixes)
    text = f"{prop} ({relation.uses})"
    if example and relation.term is not None:
        filler = f" of {compact_iri(relation.filler, prefixes)}" if relation.filler is not None else ""
        text += f" e.g. {compact_iri(relation.term, prefixes)} rdfs:subClassOf [owl:onProperty {prop}{filler}]"
    return text


def _class(cls: SurveyedClass, prefixes: Mapping[str, str]) -> ClassSummary:
    query = cls.example_query
    return ClassSummary(
        id=compact_iri(cls.iri, prefixes),
        instances=cls.instances,
        graphs=cls.graphs,
        properties=tuple(
            PropertyLine(
                property=compact_iri(p.iri, prefixes),
                used_by=p.instances_using,
                kinds={k.kind: k.count for k in p.object_kinds},
                types=tuple(compact_iri(t.type_iri, prefixes) for t in p.object_types[:_TYPES_SHOWN]),
                examples=tuple(_example(e, prefixes) for e in p.examples[:2]),
            )
            for p in cls.properties
        ),
        example_query=query.sparql if query is not None and query.ran else None,
        example_rows=query.rows if query is not None else 0,
    )


def _example(n3: str, prefixes: Mapping[str, str]) -> str:
    """An example value for the model: IRIs and datatypes compacted, text made safe."""
    if n3.startswith("<") and n3.endswith(">"):
        return compact_iri(n3[1:-1], prefixes)
    head, marker, datatype = n3.rpartition("^^<")
    if marker and datatype.endswith(">"):
        return graph_text(f"{head}^^{compact_iri(datatype[:-1], prefixes)}", 80)
    return graph_text(n3, 80)


def render_summary(summary: SourceSummary, max_chars: int = RESULT_CHARS) -> str:
    """The model's view of a summary, capped at ``max_chars`` (detail shortened before classes are dropped)."""
    return summary_text.render_summary(summary, max_chars)

"""search(text) over the name index, and property_examples(property) from real triples."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from saga_kgqa.dialects.model import WIKIDATA_DIRECT, WIKIDATA_ENTITY
from saga_kgqa.kg.core.result import Row, Term
from saga_kgqa.schema.vocab import OWL_CLASS, RDFS_CLASS, local_name
from saga_kgqa.tools.context import ToolContext
from saga_kgqa.tools.graph_reads import Texts
from saga_kgqa.tools.lookup.dialect_reads import recorded_examples
from saga_kgqa.tools.render_observations import render_examples, render_search
from saga_kgqa.tools.results import Example, PropertyExamplesResult, SearchHit, SearchResult
from saga_kgqa.tools.search.label_index import SCHEMA_SOURCE, MatchKind, NameMatch, normalise

if TYPE_CHECKING:
    # Annotations only: the client module pulls in the remote stack and the guard's parser (issue 27).
    from saga_kgqa.kg.remote.wikidata_search import EntityKind, WikidataEntitySearch

_CLASS_TYPES = frozenset({OWL_CLASS, RDFS_CLASS})
#: Property examples are chosen from this many times as many sampled triples, for distinct subjects and objects.
EXAMPLE_WINDOW = 10


def search_names(context: ToolContext, text: str) -> SearchResult:
    """Search entities, classes and properties by name (see :meth:`saga_kgqa.tools.toolbox.ToolView.search`)."""
    caps = context.caps
    api_texts: dict[str, Texts] = {}
    index_notes: tuple[str, ...] = ()
    client = context.entity_search
    if client is not None:
        entity_matches = _api_matches(context, client, text, "item", caps.entity_hits, api_texts)
        property_matches = _api_matches(context, client, text, "property", caps.property_hits, api_texts)
        index_size = 0
    else:
        index = context.label_index
        properties = frozenset(context.schema.properties)
        language = context.language
        entity_matches = index.search(text, limit=caps.entity_hits, reject=properties, language=language)
        property_matches = index.search(text, limit=caps.property_hits, accept=properties, language=language)
        index_size, index_notes = len(index), tuple(index.notes)
    reads = context.reads()
    entities = [match.resource for match in entity_matches]
    types = reads.types_of_many(entities, context.vocabulary.type_predicates, per_entity=4) if entities else {}
    parents = (c for e in entities if e in context.schema.classes for c in context.schema.classes[e].parents)
    wanted = {*entities, *(t for found in types.values() for t in found), *parents}
    wanted |= context.schema_resources(match.resource for match in property_matches)
    texts = _with_fallback(context.texts(reads, wanted), api_texts)
    hits = [_entity_hit(context, match, texts, types.get(match.resource, [])) for match in entity_matches]
    hits.extend(_property_hit(context, match, texts) for match in property_matches)
    result = SearchResult(query=text, hits=tuple(hits), index_size=index_size, notes=(*index_notes, *reads.notes))
    return result.model_copy(update={"text": render_search(result, caps.text)})


def _with_fallback(graph_texts: dict[str, Texts], api_texts: dict[str, Texts]) -> dict[str, Texts]:
    """The graph's label and description where it has them, field by field, else the search API's."""
    merged = dict(api_texts)
    for resource, found in graph_texts.items():
        online = api_texts.get(resource)
        if online is None:
            merged[resource] = found
        else:
            merged[resource] = Texts(
                label=found.label or online.label, description=found.description or online.description
            )
    return merged


def _api_matches(
    context: ToolContext,
    client: WikidataEntitySearch,
    text: str,
    kind: EntityKind,
    limit: int,
    texts: dict[str, Texts],
) -> list[NameMatch]:
    """Hits of the ``wbsearchentities`` API as name matches, in the API's order (its own ranking)."""
    hits = client.search(text, kind=kind, limit=limit, language=context.language)
    namespace = WIKIDATA_DIRECT if kind == "property" else WIKIDATA_ENTITY
    matches = []
    for rank, hit in enumerate(hits):
        resource = namespace + hit.id
        texts[resource] = Texts(label=context.clip(hit.label), description=context.clip(hit.description))
        matched = hit.matched or hit.label or hit.id
        kind_of_match: MatchKind = "exact" if normalise(matched) == normalise(text) else "prefix"
        matches.append(NameMatch(resource, matched, "wbsearchentities", kind_of_match, round(1.0 - rank / 100, 2)))
    return matches


def property_examples(context: ToolContext, argument: str) -> PropertyExamplesResult:
    """Show a property's schema and a few triples using it (see :meth:`saga_kgqa.tools.toolbox.ToolView.examples`)."""
    prop = context.resolve(argument, role="property")
    reads = context.reads()
    caps = context.caps
    # The property's own recorded examples first (Wikidata P1855), else real triples sampled from the graph.
    rows = recorded_examples(reads, context.dialect, prop, limit=caps.examples)
    if not rows:
        rows = varied_rows(reads.examples(prop, limit=caps.examples * EXAMPLE_WINDOW), caps.examples)
    if not rows:
        texts = context.texts(reads, context.schema_resources([prop]))
        name = context.schema.properties[prop].label if prop in context.schema.properties else None
        suggestions = context.label_index.search(
            name or local_name(prop), limit=caps.property_hits, accept=frozenset(context.schema.properties) - {prop}
        )
        result = PropertyExamplesResult(
            info=context.property_info(prop, texts),
            found=False,
            suggestions=tuple(_property_hit(context, match, texts) for match in suggestions),
            notes=tuple(reads.notes),
        )
        return result.model_copy(update={"text": render_examples(result, caps.text)})
    wanted = context.schema_resources([prop])
    wanted |= {row[name].value for row in rows for name in ("s", "o") if row[name].kind == "uri"}
    texts = context.texts(reads, wanted)
    result = PropertyExamplesResult(
        info=context.property_info(prop, texts),
        found=True,
        examples=tuple(
            Example(subject=context.value(row["s"], texts), object=context.value(row["o"], texts)) for row in rows
        ),
        notes=tuple(reads.notes),
    )
    return result.model_copy(update={"text": render_examples(result, caps.text)})


def _entity_hit(context: ToolContext, match: NameMatch, texts: dict[str, Texts], types: list[str]) -> SearchHit:
    resource = match.resource
    is_class = resource in context.schema.classes or bool(_CLASS_TYPES & set(types))
    found = texts.get(resource)
    info = context.schema.classes.get(resource)
    parents = sorted(info.parents) if info is not None else []
    return SearchHit(
        kind="class" if is_class else "entity",
        resource=context.ref(resource, texts),
        matched=match.text,
        match=match.match,
        score=match.score,
        description=found.description if found is not None else None,
        types=() if is_class else tuple(context.ref(t, texts) for t in types),
        superclasses=tuple(context.ref(c, texts) for c in parents),
        via=_via(context, match.source),
    )


def _via(context: ToolContext, source: str) -> str | None:
    """The compact id of the data-detected property whose value matched; ``None`` for curated names and the schema."""
    if source in context.name_predicates or source == SCHEMA_SOURCE or "://" not in source:
        return None
    return context.ref(source).id


def _property_hit(context: ToolContext, match: NameMatch, texts: dict[str, Texts]) -> SearchHit:
    info = context.property_info(match.resource, texts)
    return SearchHit(
        kind="property",
        resource=info.property,
        matched=match.text,
        match=match.match,
        score=match.score,
        description=info.description,
        property=info,
    )


def varied_rows(rows: Sequence[Row], limit: int) -> list[Row]:
    """Up to ``limit`` ``?s ?o`` rows, new subjects and new objects first, in the rows' order.

    The first rows a store returns often share one subject or one object (every product of
    one supplier). Rows whose subject and object are both unseen come first, then rows with
    one unseen side, then the rest, so a value repeats only when the window has no others.
    """
    chosen: list[int] = []
    subjects: set[Term] = set()
    objects: set[Term] = set()
    for wanted_new in (2, 1, 0):
        for index, row in enumerate(rows):
            if len(chosen) >= limit:
                break
            if index in chosen:
                continue
            if (row["s"] not in subjects) + (row["o"] not in objects) >= wanted_new:
                chosen.append(index)
                subjects.add(row["s"])
                objects.add(row["o"])
    return [rows[i] for i in sorted(chosen)]

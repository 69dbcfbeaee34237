"""Entity resolution (AutoSchema's ``search_rdf_entity``): names and identifiers to stable IRIs.

Matched through labels, alternative labels, name-like literals and the identifier
literals the survey found (accession forms normalised), over the source's persistent
full-text index (:class:`~saga_kgqa.tools.search.fulltext.FullTextIndex`), built with the store
on first use and reused after. Hits are IRIs, never blank nodes, each with its classes
and label. The search tool of a source uses the same index, so there is one search.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from saga_kgqa.errors import BackendError, ConfigurationError
from saga_kgqa.schema.survey_model import SourceSurvey, SurveyedProperty
from saga_kgqa.schema.vocab import RDF_LANG_STRING, XSD_STRING, SchemaVocabulary, is_datatype
from saga_kgqa.sources.session import OpenSource, SourceSet
from saga_kgqa.sources.virtuoso_text import VIRTUOSO_PROFILE, has_native_text, native_search
from saga_kgqa.text_safety import graph_text, quoted
from saga_kgqa.tools.graph_reads import Reads
from saga_kgqa.tools.render import compact_iri
from saga_kgqa.tools.search.fulltext import IDENTIFIER_SOURCE, FullTextIndex
from saga_kgqa.tools.search.identifier_forms import is_identifier_property, looks_like_identifier
from saga_kgqa.tools.search.label_index import (
    NameEntry,
    NameMatch,
    name_predicates,
    read_names,
    schema_entries,
    vocabulary_names,
)
from saga_kgqa.tools.search.name_detection import DetectedNames, detect_names, read_compound_names

_LABEL_CHARS = 200
_STRING_DATATYPES = frozenset({XSD_STRING, RDF_LANG_STRING})
#: Told how many names are indexed so far while an index is built.
Progress = Callable[[int], None]


class EntityCandidate(BaseModel):
    """One IRI a name may refer to.

    Attributes:
        iri: The IRI (never a blank node).
        id: Its compact form (prefixes the guard knows).
        label: Its name as matched (graph text, sanitised and capped).
        matched_by: How it matched: ``exact``, ``prefix``, ``words``, ``substring`` or ``fuzzy``.
        via: The predicate whose literal matched, ``identifier`` or ``iri`` (its local name).
        classes: Its classes in the graph.
        score: Higher is better.
    """

    model_config = ConfigDict(frozen=True)

    iri: str
    id: str
    label: str
    matched_by: str
    via: str
    classes: tuple[str, ...] = ()
    score: float


class EntityResolution(BaseModel):
    """The candidates for one name in one source."""

    model_config = ConfigDict(frozen=True)

    source: str
    query: str
    candidates: tuple[EntityCandidate, ...] = ()
    index_size: int = 0
    engine: str = Field(default="tantivy", description="The text index searched: tantivy, or virtuoso (its own).")
    notes: tuple[str, ...] = ()


def identifier_predicates(survey: SourceSurvey) -> tuple[str, ...]:
    """Literal-valued properties the survey saw holding identifiers (by name or by value shape)."""
    found: dict[str, None] = {}
    for cls in survey.classes:
        for prop in cls.properties:
            literal = any(k.kind == "literal" for k in prop.object_kinds)
            values = [e.split('"')[1] for e in prop.examples if e.startswith('"') and e.count('"') >= 2]
            shaped = bool(values) and all(looks_like_identifier(v) for v in values)
            if literal and _string_valued(prop) and (is_identifier_property(prop.iri) or shaped):
                found[prop.iri] = None
    return tuple(found)


def _string_valued(prop: SurveyedProperty) -> bool:
    """Whether the sampled literals are strings: integers and dates are values, never identifiers (issue 27).

    At 10M triples every integer and date property was indexed as identifiers (``"1987"`` has an
    identifier's shape): about 5M values a name search could only match by accident.
    """
    datatypes = {t.type_iri for t in prop.object_types if is_datatype(t.type_iri)}
    typed = {e.rsplit("^^", 1)[1].strip("<>") for e in prop.examples if e.startswith('"') and "^^" in e}
    return (datatypes | typed) <= _STRING_DATATYPES


def name_index(source: OpenSource, *, rebuild: bool = False, progress: Progress | None = None) -> FullTextIndex:
    """Open the source's name index, building it first when it is missing, stale or ``rebuild`` is set."""
    if source.names is not None and not rebuild:
        return source.names
    path = source.fulltext_path()
    if not rebuild:
        try:
            index = FullTextIndex.open(path, primary=source.vocabulary().label_predicates)
            if index.meta.get("endpoint_id") == source.graph.endpoint_id:
                source.set_names(index)
                return index
        except ConfigurationError:
            pass
    index = build_name_index(source, progress=progress, reuse=not rebuild)
    source.set_names(index)
    return index


def build_name_index(source: OpenSource, *, progress: Progress | None = None, reuse: bool = True) -> FullTextIndex:
    """Read every name and identifier literal of the source and write its full-text index.

    An embedded store's names are streamed from its indexes in bounded memory, every one of
    them (:mod:`~saga_kgqa.tools.search.streamed_build`), the vocabulary's labels while the
    source is surveyed; a remote source's are read by bounded queries (``names_per_predicate``
    each, noted when reached).
    """
    store_dir = source.graph.local_store_dir
    if store_dir is not None:
        return _build_streamed(source, store_dir, progress=progress, reuse=reuse)
    reads = source.reads()
    plan = _name_plan(source, reads)
    cap = source.caps.names_per_predicate
    entries = read_names(reads, plan.predicates, max_names_per_predicate=cap)
    entries.extend(read_compound_names(reads, plan.detected.compounds, max_names=cap))
    entries.extend(plan.schema_names)
    return FullTextIndex.build(
        source.fulltext_path(),
        entries,
        identifier_sources=plan.identifiers,
        endpoint_id=source.graph.endpoint_id,
        primary=source.vocabulary().label_predicates,
        notes=reads.notes,
        secondary_sources=plan.detected.texts,
        detected=plan.detected,
    )


@dataclass(frozen=True, slots=True)
class _Plan:
    predicates: tuple[str, ...]
    identifiers: tuple[str, ...]
    detected: DetectedNames
    schema_names: tuple[NameEntry, ...]


def _name_plan(source: OpenSource, reads: Reads) -> _Plan:
    """Which predicates the index holds: names, identifiers the survey saw, and names detected in the data.

    ``reads`` sends the detection's samples and keeps its notes (a property not sampled), for the index.
    """
    schema, vocabulary = source.schema(), source.vocabulary()
    idents = identifier_predicates(source.survey())
    predicates = resolution_predicates(source)
    # Names the graph keeps under its own property names (concert_name, nationality), found in its data.
    detected = detect_names(reads, schema, known=predicates, skip=vocabulary.type_predicates)
    return _Plan(
        predicates=(*predicates, *detected.predicates),
        identifiers=(*idents, *detected.identifiers),
        detected=detected,
        schema_names=tuple(schema_entries(schema)),
    )


def _build_streamed(source: OpenSource, store_dir: Path, *, progress: Progress | None, reuse: bool) -> FullTextIndex:
    """Stream an embedded store's names; its labels go in while another thread surveys it.

    The survey's probes run in the store's worker process, so on a second core: at 1M triples
    ``saga load``'s survey (2.3 s) ran before a name was indexed, now beside the labels (issue 27).
    The rest of the plan (identifier literals, names detected in the data) needs the survey.
    """
    from saga_kgqa.tools.search.store_names import StoreNames
    from saga_kgqa.tools.search.streamed_build import NamePlan, build_from_store

    labels = StoreNames(store_dir, vocabulary_names(SchemaVocabulary()))

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="saga-survey") as pool:
        surveyed = pool.submit(source.survey)

        def rest() -> NamePlan:
            surveyed.result()
            reads = source.reads()
            plan = _name_plan(source, reads)
            compounds = read_compound_names(reads, plan.detected.compounds, max_names=source.caps.names_per_predicate)
            return NamePlan(
                names=StoreNames(store_dir, plan.predicates),
                extra=(*compounds, *plan.schema_names),
                identifier_sources=frozenset(plan.identifiers),
                secondary_sources=plan.detected.texts,
                notes=tuple(reads.notes),
                detected=plan.detected,
            )

        return build_from_store(
            source.fulltext_path(),
            labels,
            endpoint_id=source.graph.endpoint_id,
            primary=SchemaVocabulary().label_predicates,
            progress=progress,
            reuse=reuse,
            rest=rest,
        )


def resolve_entity(
    sources: SourceSet, source: str, text: str, *, limit: int = 8, language: str | None = None
) -> EntityResolution:
    """Find the IRIs a name or identifier may refer to in one source.

    Args:
        sources: The operator's sources.
        source: The source's name.
        text: A name, part of one, or an identifier (``P12345``, ``GO:0008150``).
        limit: Most candidates.
        language: The question's language: names in it rank first, then untagged names, then
            other languages (default: English, the language of the source's bounded reads).

    Returns:
        Candidates best first; properties and classes of the schema are left out.

    Raises:
        UnknownName: No source has that name.
        BackendError: The source failed while the index was built or types were read.
    """
    opened = sources.get(source)
    schema = opened.schema()
    reject = frozenset(schema.properties) | frozenset(schema.classes)
    preferred = language or "en"
    matches, index_size, engine, index_notes = _search(opened, text, limit=limit, reject=reject, language=preferred)
    reads = opened.reads()
    iris = [m.resource for m in matches]
    types = reads.types_of_many(iris, schema.type_predicates, per_entity=4) if iris else {}
    prefixes = opened.prefixes
    candidates = tuple(
        EntityCandidate(
            iri=m.resource,
            id=compact_iri(m.resource, prefixes),
            label=_clean(m.text),
            matched_by=m.match,
            via=IDENTIFIER_SOURCE if m.source == IDENTIFIER_SOURCE else compact_iri(m.source, prefixes),
            classes=tuple(compact_iri(t, prefixes) for t in types.get(m.resource, ())),
            score=m.score,
        )
        for m in matches
    )
    return EntityResolution(
        source=opened.name,
        query=text,
        candidates=candidates,
        index_size=index_size,
        engine=engine,
        notes=(*index_notes, *reads.notes),
    )


def _search(
    opened: OpenSource, text: str, *, limit: int, reject: frozenset[str], language: str
) -> tuple[list[NameMatch], int, str, tuple[str, ...]]:
    """Matches, names indexed, the engine searched and notes: Virtuoso's own index first, else tantivy."""
    predicates = resolution_predicates(opened)
    fallback: tuple[str, ...] = ()
    if has_native_text(opened, predicates):
        try:
            return native_search(opened, text, predicates, limit=limit, reject=reject), 0, VIRTUOSO_PROFILE, ()
        except BackendError as exc:
            fallback = (f"the engine's full-text search failed ({type(exc).__name__}); used the name index",)
    elif opened.graph.profile.name == VIRTUOSO_PROFILE:
        fallback = ("the Virtuoso server has no full-text index over these names; used the name index",)
    index = name_index(opened)
    matches = index.search(text, limit=limit, reject=reject, language=language)
    return matches, len(index), "tantivy", (*fallback, *index.notes)


def resolution_predicates(source: OpenSource) -> tuple[str, ...]:
    """The name and identifier predicates resolution matches against (those the name index holds)."""
    schema, vocabulary = source.schema(), source.vocabulary()
    idents = identifier_predicates(source.survey())
    return tuple(dict.fromkeys([*name_predicates(schema, vocabulary), *idents]))


def _clean(text: str) -> str:
    return graph_text(text, _LABEL_CHARS)


def render_resolution(result: EntityResolution) -> str:
    """The model's view: one candidate per line."""
    searched = "Virtuoso's full-text index" if result.engine == "virtuoso" else f"{result.index_size} names indexed"
    lines = [f"entities in {result.source} for {result.query!r} ({searched}):"]
    if not result.candidates:
        lines.append("  no match; try another spelling, a shorter name or an identifier")
    for c in result.candidates:
        classes = ", ".join(c.classes) or "no class"
        lines.append(f"  {c.id}  {quoted(c.label)}  [{classes}]  ({c.matched_by} via {c.via})")
    lines.extend(f"  note: {graph_text(note)}" for note in _first(result.notes, 3))
    return "\n".join(lines)


def _first(items: Iterable[str], n: int) -> list[str]:
    return list(items)[:n]

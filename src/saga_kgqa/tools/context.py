"""What the grounding tools share: the graph, the schema index, the caps, the prefixes and the name index."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict, Unpack

from saga_kgqa.dialects.model import RDF_DIALECT, Dialect
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import CompatibilityMode, SchemaIndex, SchemaVocabulary
from saga_kgqa.schema.model import SideEvidence
from saga_kgqa.tools.graph_reads import Reads, Texts
from saga_kgqa.tools.identifiers import resolve_iri
from saga_kgqa.tools.lookup.hiding import HideSettings, Hiding
from saga_kgqa.tools.render import compact_iri
from saga_kgqa.tools.render_observations import TextCaps
from saga_kgqa.tools.results import PropertyInfo, Ref, Value
from saga_kgqa.tools.search.label_index import NameIndex, name_predicates
from saga_kgqa.tools.search.name_detection import DetectedNames, detect_names
from saga_kgqa.tools.search.names_cache import DEFAULT_FULLTEXT_NAMES, loaded_store_index, open_name_index

if TYPE_CHECKING:
    # Only a type here: the HTTP stack (and the guard's SPARQL parser it pulls) stays out of local lookups.
    from saga_kgqa.kg.remote.wikidata_search import WikidataEntitySearch

_LANGUAGE_TAG = re.compile(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*")


@dataclass(frozen=True, slots=True)
class ToolCaps:
    """How much the tools read from the graph and show a model.

    Attributes:
        entity_hits: Entities and classes returned by search.
        property_hits: Properties returned by search.
        properties_shown: Kept properties lookup lists (values are read for these only).
        values_per_property: Sample values lookup reads and shows per property (0: only the
            count, the paper's property-only entries).
        examples: Triples shown by property examples.
        types_read: Types read per entity.
        properties_read: Distinct outgoing properties read per entity.
        triples_read: Outgoing triples read per lookup (for the values shown).
        names_per_predicate: Names read per name predicate when the search index is built.
        fulltext_names: Names above which a graph of files gets a persistent full-text
            index in the cache instead of the in-memory one
            (:mod:`~saga_kgqa.tools.search.names_cache`).
        deadline_s: Wall-clock budget of each query.
        raw_chars: Characters of graph text kept in the machine-readable results (labels,
            descriptions, literal values), so a 100 KB description never enters agent state.
        text: Character and byte caps of the rendered observations.
        hide: Bounds and support threshold of the rules that decide what lookup hides.
    """

    entity_hits: int = 8
    property_hits: int = 4
    properties_shown: int = 40
    values_per_property: int = 2
    examples: int = 5
    types_read: int = 20
    properties_read: int = 1000
    triples_read: int = 2000
    names_per_predicate: int = 500_000
    fulltext_names: int = DEFAULT_FULLTEXT_NAMES
    deadline_s: float = 20.0
    raw_chars: int = 1000
    text: TextCaps = field(default_factory=TextCaps)
    hide: HideSettings = field(default_factory=HideSettings)


class ToolboxOptions(TypedDict, total=False):
    """How the tools over one graph read and name it: the settings a toolbox, its views and a tool context share.

    Keys:
        vocabulary: Type, label and description predicates; by default the dialect's, else RDFS
            labels with the schema index's type and subclass predicates.
        caps: Read and render caps (:class:`ToolCaps`; its defaults when unset).
        prefixes: Prefixes added to the dialect's and the graph profile's for compact ids. Only pass
            prefixes the query guard also knows, or the ids shown will not parse.
        extra_name_predicates: More predicates whose literal values name resources.
        dialect: What differs per graph (:func:`saga_kgqa.dialects.get_dialect`: Wikidata qualifiers
            and property examples, Freebase CVT nodes and reverse properties); plain RDF when unset.
        entity_search: Search Wikidata's ``wbsearchentities`` API instead of the name index built
            from the graph (online Wikidata); unset searches the graph's names.
    """

    vocabulary: SchemaVocabulary | None
    caps: ToolCaps | None
    prefixes: Mapping[str, str] | None
    extra_name_predicates: Sequence[str]
    dialect: Dialect | None
    entity_search: WikidataEntitySearch | None


class ToolOptions(ToolboxOptions, total=False):
    """The :class:`ToolboxOptions` plus what a toolbox sets per run view.

    Keys:
        mode: ``subclass`` (default: subclass-aware) or ``exact`` (the paper's set intersection)
            compatibility.
        language: Preferred language of labels and descriptions (a BCP 47 tag; ``en`` by default).
    """

    mode: CompatibilityMode
    language: str


def checked_options(options: Mapping[str, object], allowed: type) -> None:
    """Refuse a keyword the options type does not name, as a plain signature would.

    Raises:
        TypeError: An unexpected keyword (a misspelt ``prefix=`` must not pass silently).
    """
    # A TypedDict's keys, read without evaluating its annotations (some are type-checking-only imports).
    named = {*getattr(allowed, "__required_keys__", ()), *getattr(allowed, "__optional_keys__", ())}
    unknown = sorted(set(options) - named)
    if unknown:
        raise TypeError(f"unexpected keyword argument {unknown[0]!r}")


class ToolContext:
    """Shared state and helpers of the tools; builds the name index on first search."""

    def __init__(self, graph: KnowledgeGraph, schema: SchemaIndex, **options: Unpack[ToolOptions]) -> None:
        """Hold what the tools need.

        Args:
            graph: The graph; only bounded template queries are sent.
            schema: The schema index used for compatibility and annotations.
            **options: How the tools read and name the graph (:class:`ToolOptions`).

        Raises:
            ConfigurationError: ``language`` is not a language tag.
        """
        checked_options(options, ToolOptions)
        dialect = options.get("dialect")
        vocabulary = options.get("vocabulary")
        language = options.get("language", "en")
        self.graph = graph
        self.schema = schema
        self.dialect = dialect or RDF_DIALECT
        self.entity_search = options.get("entity_search")
        if vocabulary is None and dialect is not None:
            vocabulary = dialect.vocabulary
        self.vocabulary = vocabulary or SchemaVocabulary(
            type_predicates=schema.type_predicates, subclass_predicates=schema.subclass_predicates
        )
        self.caps = options.get("caps") or ToolCaps()
        self.mode: CompatibilityMode = options.get("mode", "subclass")
        extra_prefixes = options.get("prefixes") or {}
        self.prefixes: dict[str, str] = {**self.dialect.prefixes, **graph.profile.prefixes, **extra_prefixes}
        extra_names = (*options.get("extra_name_predicates", ()), *self.dialect.alias_predicates)
        self.name_predicates = name_predicates(schema, self.vocabulary, extra_names)
        if not _LANGUAGE_TAG.fullmatch(language):
            raise ConfigurationError(f"not a language tag: {language[:40]!r}")
        self.language = language
        self._label_index: NameIndex | None = None
        #: Name-bearing properties found in the data when the name index was built (generic graphs).
        self.detected_names = DetectedNames()
        self.hiding = Hiding(schema, self.vocabulary, self.caps.hide, names=frozenset(self.name_predicates))

    def reads(self) -> Reads:
        """A fresh query helper whose notes belong to one tool call."""
        return Reads(self.graph, deadline_s=self.caps.deadline_s, language=self.language)

    @property
    def label_index(self) -> NameIndex:
        """The name index: the one given to :meth:`use_name_index`, else built from the graph on first use."""
        if self._label_index is None:
            reads = self.reads()
            store_dir = self.graph.local_store_dir
            primary = self.vocabulary.label_predicates
            # The index `saga load` built records the detection it was built with: reused, no sampling (issue 27).
            loaded = loaded_store_index(store_dir, self.graph.endpoint_id, primary) if store_dir else None
            recorded = loaded.recorded_detection() if loaded is not None else None
            detected = DetectedNames()
            if self.dialect.name == RDF_DIALECT.name:
                # Wikidata and Freebase name things through their curated predicates; other graphs
                # name them however they like (concert_name, first_name + last_name): read from the data.
                detected = recorded or detect_names(
                    reads, self.schema, known=self.name_predicates, skip=self.vocabulary.type_predicates
                )
                self.hiding.names = self.hiding.names | frozenset(detected.names)
            self.detected_names = detected
            if loaded is not None and recorded is not None:
                self._label_index = loaded
                return loaded
            self._label_index = open_name_index(
                reads,
                self.graph.endpoint_id,
                self.name_predicates,
                self.schema,
                primary=self.vocabulary.label_predicates,
                max_names_per_predicate=self.caps.names_per_predicate,
                threshold=self.caps.fulltext_names,
                detected=detected,
                store_dir=store_dir,
            )
        return self._label_index

    def use_name_index(self, index: NameIndex) -> None:
        """Search this index instead of building the in-memory one (a source's persistent full-text index)."""
        self._label_index = index

    def resolve(self, argument: str, *, role: str) -> str:
        """Turn a tool argument into an IRI (see :func:`~saga_kgqa.tools.identifiers.resolve_iri`)."""
        return resolve_iri(argument, self.prefixes, role=role)

    def texts(self, reads: Reads, resources: Iterable[str]) -> dict[str, Texts]:
        """Labels and descriptions of resources, from the graph, clipped to ``caps.raw_chars``."""
        found = reads.texts(resources, self.vocabulary.label_predicates, self.vocabulary.description_predicates)
        return {
            resource: Texts(label=self.clip(texts.label), description=self.clip(texts.description))
            for resource, texts in found.items()
        }

    def clip(self, text: str | None) -> str | None:
        """Cut raw graph text to ``caps.raw_chars`` (it is escaped only when rendered)."""
        if text is None or len(text) <= self.caps.raw_chars:
            return text
        return text[: self.caps.raw_chars - 1] + "…"

    def ref(self, iri: str, texts: Mapping[str, Texts] | None = None) -> Ref:
        """A resource with its compact id and best label (graph text first, then the schema's)."""
        label = texts[iri].label if texts and iri in texts else None
        if label is None:
            info = self.schema.classes.get(iri) or self.schema.properties.get(iri)
            label = info.label if info is not None else None
        return Ref(iri=iri, id=compact_iri(iri, self.prefixes), label=self.clip(label))

    def property_info(self, prop: str, texts: Mapping[str, Texts] | None = None) -> PropertyInfo:
        """A property with its label, description, domain and range from the schema index."""
        entry = self.schema.property_schema(prop)
        description = texts[prop].description if texts and prop in texts else None
        if entry is None:
            return PropertyInfo(property=self.ref(prop, texts), description=description)
        return PropertyInfo(
            property=self.ref(prop, texts),
            description=self.clip(entry.description) or description,
            domain=tuple(self.ref(c, texts) for c in self._representative_first(entry.domain, entry.domain_evidence)),
            # Without a range (too few distinct objects to induce one) the recorded datatype still says what values are.
            range=tuple(
                self.ref(c, texts)
                for c in self._representative_first(
                    entry.range or ([entry.datatype] if entry.datatype else ()), entry.range_evidence
                )
            ),
            domain_source=entry.domain_source,
            range_source=entry.range_source,
        )

    def _representative_first(self, classes: Iterable[str], evidence: SideEvidence | None) -> list[str]:
        """Classes ordered so the first ones best represent the set (observations show only a few).

        Most often observed first where sampling counted them, then the most prominent in
        the schema (see :meth:`SchemaIndex.class_prominence`), then by IRI for stability.
        """
        observed = {count.type_iri: count.count for count in evidence.counts} if evidence else {}
        return sorted(classes, key=lambda c: (-observed.get(c, 0), -self.schema.class_prominence(c), c))

    def value(self, term: Term, texts: Mapping[str, Texts] | None = None) -> Value:
        """A result term as a :class:`Value`, with compact ids and the label of an IRI."""
        if term.kind == "uri":
            ref = self.ref(term.value, texts)
            return Value(kind="uri", value=term.value, id=ref.id, label=ref.label)
        datatype_id = compact_iri(term.datatype, self.prefixes) if term.datatype else None
        value = self.clip(term.value) or ""
        return Value(kind=term.kind, value=value, datatype=term.datatype, datatype_id=datatype_id, lang=term.lang)

    def schema_resources(self, props: Iterable[str]) -> set[str]:
        """Properties and the classes of their domains and ranges that lack a schema label."""
        wanted: set[str] = set()
        for prop in props:
            entry = self.schema.property_schema(prop)
            if entry is None or entry.label is None or entry.description is None:
                wanted.add(prop)
            if entry is not None:
                wanted.update(c for c in entry.domain | entry.range if self._needs_label(c))
        return wanted

    def _needs_label(self, resource: str) -> bool:
        info = self.schema.classes.get(resource)
        return info is None or info.label is None

"""An in-memory index of names (labels, aliases, literal names) for exact, prefix, word and fuzzy search.

It is built from the graph with one bounded query per label predicate, plus the labels
and local names the schema index records for properties and classes. Matching is plain
Python (``bisect`` for prefixes, :mod:`difflib` for fuzzy matches): no search server and
no large dependency, which suits graphs up to a few million names.
"""

from __future__ import annotations

import bisect
import difflib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from saga_kgqa.errors import QueryTimeout
from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.schema import SchemaIndex, SchemaVocabulary
from saga_kgqa.schema.vocab import SKOS, XSD_STRING, is_datatype, local_name
from saga_kgqa.tools.graph_reads import Reads

MatchKind = Literal["exact", "prefix", "words", "substring", "fuzzy"]

#: skos:altLabel holds aliases in most SKOS-using graphs; always searched.
SKOS_ALT_LABEL = SKOS + "altLabel"
#: Predicates holding the schema's own names for a property or class.
SCHEMA_SOURCE = "schema"

# Local names of literal-valued properties that hold a resource's name (CK25's pv:name, schema:name, ...).
_NAME_LIKE = frozenset(
    {"name", "label", "title", "preflabel", "altlabel", "alias", "aliases", "fullname", "displayname"}
)
_INVISIBLE = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
#: Least difflib ratio of a fuzzy match: "berln" finds "berlin" (0.91), "alice" does not find "sales" (0.6).
FUZZY_CUTOFF = 0.75
_SCORES: dict[MatchKind, float] = {"exact": 1.0, "prefix": 0.9, "words": 0.8, "substring": 0.7, "fuzzy": 0.6}


def normalise(text: str) -> str:
    """Fold a name for matching: NFKC, case-folded, invisible characters dropped, whitespace collapsed."""
    if text.isascii():
        # ASCII is NFKC-stable, holds no invisible character and case-folds as it lowercases: the
        # name index folds millions of names, and this path is about three times faster (issue 27).
        return " ".join(text.lower().split())
    text = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
    return " ".join(text.casefold().split())


def vocabulary_names(vocabulary: SchemaVocabulary) -> tuple[str, ...]:
    """The name predicates of every graph, read first: the vocabulary's labels, then ``skos:altLabel``.

    Known before anything is read, so a store's name index streams them while the graph is surveyed.
    """
    return tuple(dict.fromkeys([*vocabulary.label_predicates, SKOS_ALT_LABEL]))


def name_predicates(schema: SchemaIndex, vocabulary: SchemaVocabulary, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The predicates whose literal values name a resource.

    The vocabulary's label predicates, ``skos:altLabel``, ``extra``, and every indexed
    property whose local name says it is a name (``name``, ``title``, ``prefLabel``, ...)
    and whose range is literal or unknown.
    """
    found = dict.fromkeys([*vocabulary_names(vocabulary), *extra])
    for prop, entry in sorted(schema.properties.items()):
        folded = re.sub(r"[^a-z]", "", local_name(prop).casefold())
        if folded in _NAME_LIKE and all(is_datatype(r) for r in entry.range):
            found[prop] = None
    return tuple(found)


@dataclass(frozen=True, slots=True)
class NameEntry:
    """One name of one resource.

    Attributes:
        resource: The IRI named.
        text: The name as the graph (or schema) spells it.
        source: The predicate it came from, or ``schema`` for schema labels and local names.
        language: The literal's language tag (lower case; ``""``: untagged).
    """

    resource: str
    text: str
    source: str
    language: str = ""


@dataclass(frozen=True, slots=True)
class NameMatch:
    """The best way one resource matched a query (``language``: the matched name's tag, ``""`` untagged)."""

    resource: str
    text: str
    source: str
    match: MatchKind
    score: float
    language: str = ""


class NameIndex(Protocol):
    """What the search tool needs from a name index (this in-memory one, or the full-text one)."""

    notes: tuple[str, ...]

    def __len__(self) -> int:
        """Names indexed."""
        ...

    def search(
        self,
        text: str,
        *,
        limit: int,
        accept: frozenset[str] | None = None,
        reject: frozenset[str] = frozenset(),
        language: str | None = None,
    ) -> list[NameMatch]:
        """The best-matching resources, best first, one match per resource (names in ``language`` first)."""
        ...


class LabelIndex:
    """Names of resources, searchable by exact, prefix, word, substring and fuzzy match."""

    def __init__(
        self,
        entries: Iterable[NameEntry],
        *,
        primary: Iterable[str] = (),
        notes: Sequence[str] = (),
        secondary: Iterable[str] = (),
        identifiers: Iterable[str] = (),
    ) -> None:
        """Index the given names.

        Args:
            entries: The names; duplicates are harmless.
            primary: Sources of preferred names (``rdfs:label``, ``skos:prefLabel``): among
                equally good matches, a preferred name beats an alias or a literal name.
            notes: Remarks on how the index was built (limits reached).
            secondary: Sources of text attributes (``nationality``): after names at the same match tier.
            identifiers: Sources of identifiers and codes: after names and texts at the same match tier,
                so an identifier never outranks a name match.
        """
        self._primary = frozenset(primary)
        self._kinds = {**dict.fromkeys(secondary, 1), **dict.fromkeys(identifiers, 2)}
        self._by_key: dict[str, list[NameEntry]] = {}
        for entry in entries:
            key = normalise(entry.text)
            if key:
                bucket = self._by_key.setdefault(key, [])
                if entry not in bucket:
                    bucket.append(entry)
        self._keys = sorted(self._by_key)
        self.notes = tuple(notes)

    def __len__(self) -> int:
        return sum(len(bucket) for bucket in self._by_key.values())

    @classmethod
    def build(
        cls,
        reads: Reads,
        predicates: Sequence[str],
        schema: SchemaIndex,
        *,
        primary: Iterable[str] = (),
        max_names_per_predicate: int = 500_000,
    ) -> LabelIndex:
        """Read every literal name in the graph, plus the schema's property and class names.

        Args:
            reads: Sends the bounded queries.
            predicates: The name predicates (see :func:`name_predicates`).
            schema: Adds labels and local names of properties and classes (``memberOf`` is
                also found as "member of").
            primary: Sources of preferred names (see :class:`LabelIndex`).
            max_names_per_predicate: LIMIT of each query; reaching it adds a note.
        """
        start = len(reads.notes)
        entries = read_names(reads, predicates, max_names_per_predicate=max_names_per_predicate)
        entries.extend(schema_entries(schema))
        return cls(entries, primary=primary, notes=reads.notes[start:])

    def search(
        self,
        text: str,
        *,
        limit: int,
        accept: frozenset[str] | None = None,
        reject: frozenset[str] = frozenset(),
        language: str | None = None,
    ) -> list[NameMatch]:
        """Return the best-matching resources, best first, one match per resource.

        Tiers, in order: exact name, name starting with the query, every query word
        starting a word of the name, the query inside the name, then fuzzy (difflib)
        matches, tried only when the earlier tiers found fewer than ``limit`` resources.
        Within a tier, names tagged with ``language`` come first, then untagged ones, then
        the other languages (:func:`language_rank`).

        Args:
            text: The query text.
            limit: Most resources returned.
            accept: Only these resources (``None``: all).
            reject: Never these resources.
            language: The question's language (``None``: no preference).
        """
        query = normalise(text)
        if not query or limit <= 0:
            return []
        best: dict[str, NameMatch] = {}

        def offer(key: str, kind: MatchKind) -> None:
            for entry in self._by_key[key]:
                if entry.resource in reject or (accept is not None and entry.resource not in accept):
                    continue
                closeness = difflib.SequenceMatcher(None, query, key).ratio() if kind != "exact" else 1.0
                score = round(_SCORES[kind] + 0.09 * closeness, 4)
                found = NameMatch(entry.resource, entry.text, entry.source, kind, score, entry.language)
                current = best.get(entry.resource)
                if current is None or self._rank(found, language) < self._rank(current, language):
                    best[entry.resource] = found

        if query in self._by_key:
            offer(query, "exact")
        position = bisect.bisect_left(self._keys, query)
        while position < len(self._keys) and self._keys[position].startswith(query):
            if self._keys[position] != query:
                offer(self._keys[position], "prefix")
            position += 1
        words = query.split()
        for key in self._keys:
            if key.startswith(query):
                continue
            key_words = key.split()
            if all(any(kw.startswith(word) for kw in key_words) for word in words):
                offer(key, "words")
            elif len(query) >= 3 and query in key:
                offer(key, "substring")
        if len(best) < limit:
            for key in difflib.get_close_matches(query, self._keys, n=limit * 3, cutoff=FUZZY_CUTOFF):
                offer(key, "fuzzy")
        return sorted(best.values(), key=lambda match: self._rank(match, language))[:limit]

    def _rank(self, match: NameMatch, language: str | None) -> MatchRank:
        """Sort key: tier, names before texts before identifiers, language, score, preferred, shorter name, IRI."""
        return match_rank(match, self._primary, self._kinds, language)


#: The sort key of a match (see :func:`match_rank`).
MatchRank = tuple[float, int, int, float, bool, int, str]


def language_rank(tag: str, language: str | None) -> int:
    """0 for a name in ``language`` (or one of its subtags), 1 for an untagged name, 2 for another language.

    Without a preferred language every name ranks 0.
    """
    if not language:
        return 0
    if not tag:
        return 1
    wanted, tag = language.lower(), tag.lower()
    return 0 if tag == wanted or tag.startswith(wanted + "-") else 2


def match_rank(
    match: NameMatch, primary: frozenset[str], kinds: dict[str, int], language: str | None = None
) -> MatchRank:
    """The order of matches: exact, prefix, words, substring, fuzzy; within a tier names, texts, identifiers.

    Then names in the question's ``language``, untagged names, names in other languages.
    """
    tier = _SCORES[match.match]
    return (
        -tier,
        kinds.get(match.source, 0),
        language_rank(match.language, language),
        -match.score,
        match.source not in primary,
        len(match.text),
        match.resource,
    )


def read_names(reads: Reads, predicates: Sequence[str], *, max_names_per_predicate: int) -> list[NameEntry]:
    """Read the literal names of IRI subjects (never blank nodes), one bounded query per predicate.

    Names in every language are read, each with its tag (search ranks the question's language
    first). Typed literals (numbers, dates) are values, not names. A predicate whose query times
    out is skipped with a note in ``reads.notes``.
    """
    entries: list[NameEntry] = []
    for predicate in predicates:
        try:
            condition = "isIRI(?s) && isLiteral(?name)"
            rows = reads.select(
                f"SELECT ?s ?name WHERE {{ ?s {iri(predicate)} ?name FILTER({condition}) }}",
                limit=max_names_per_predicate,
                what=f"names via {predicate}",
            ).rows
        except QueryTimeout:
            # One slow predicate must not cost the others: search then misses its names, and says so.
            reads.notes.append(f"names via {predicate}: timed out; search does not cover them")
            continue
        # Typed literals other than strings are dropped here, not in the query: engines disagree on datatype().
        entries.extend(
            NameEntry(row["s"].value, row["name"].value, predicate, (row["name"].lang or "").lower())
            for row in rows
            if row["name"].datatype in (None, XSD_STRING) or row["name"].lang
        )
    return entries


def schema_entries(schema: SchemaIndex) -> list[NameEntry]:
    """The schema's property and class names as index entries (source ``schema``)."""
    return [NameEntry(resource, label, SCHEMA_SOURCE) for resource, label in schema_names(schema)]


def schema_names(schema: SchemaIndex) -> Iterable[tuple[str, str]]:
    """Labels and local names of indexed properties and classes (camelCase also split into words)."""
    infos: list[tuple[str, str | None]] = [(p, e.label) for p, e in schema.properties.items()]
    infos.extend((c, e.label) for c, e in schema.classes.items())
    for resource, label in infos:
        if label:
            yield resource, label
        name = local_name(resource)
        yield resource, name
        spaced = _CAMEL.sub(" ", name).replace("_", " ")
        if spaced != name:
            yield resource, spaced

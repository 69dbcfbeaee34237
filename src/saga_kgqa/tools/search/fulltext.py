"""A persistent full-text index of names (tantivy) for embedded stores with millions of names.

:class:`~saga_kgqa.tools.search.label_index.LabelIndex` keeps every name in Python and scans them
per query (difflib for fuzzy matches), which is fine for CK25 and slow for millions of
names; it is also rebuilt on every run. This index is built once next to the store (or
in the cache, keyed by the store's content digest), opened in milliseconds, and searched
by tantivy: exact name, every word, prefix of the last word, fuzzy words (one or two edits), and
identifier forms (:mod:`~saga_kgqa.tools.search.identifier_forms`: ``GO:0008150`` meets
``go_0008150``). Only IRIs are indexed: a blank node is never a search hit.

It answers the same ``search(text, limit=…, accept=…, reject=…)`` as ``LabelIndex``, so
the search tool can use either.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import tantivy

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.private_files import write_private
from saga_kgqa.schema.vocab import local_name
from saga_kgqa.tools.search.identifier_forms import identifier_forms
from saga_kgqa.tools.search.label_index import (
    MatchKind,
    MatchRank,
    NameEntry,
    NameMatch,
    match_rank,
    normalise,
)
from saga_kgqa.tools.search.name_detection import DetectedNames

#: File in the index directory recording what it was built from.
META_FILE = "saga-fulltext.json"
#: The ``source`` of names that are identifier literals or IRI local names.
IDENTIFIER_SOURCE = "identifier"
#: 3: each name's language tag is stored (``lang``), names of every language are indexed.
#: 4: an IRI's local-name forms are in its first name's document (``local``), not a document of their own.
#: 5: ``iri``, ``source`` and ``lang`` are stored only (bytes), not indexed: no query reads them as terms.
FORMAT_VERSION = 5
#: Formats this code searches: a version 3 index keeps one ``iri`` document per local name, found by ``ident``.
_READABLE = frozenset({3, 4, FORMAT_VERSION})
#: Formats that keep an IRI's local-name forms in ``local``.
_WITH_LOCAL = frozenset({4, FORMAT_VERSION})

_SCORES: dict[MatchKind, float] = {"exact": 1.0, "prefix": 0.9, "words": 0.8, "substring": 0.7, "fuzzy": 0.6}
_WORD = re.compile(r"\w+")
_CANDIDATES_PER_HIT = 6
_WRITER_HEAP = 64_000_000


def _schema() -> tantivy.Schema:
    # Index options: what the queries below read and nothing more (at 10M triples, positions on every field
    # took a sixth of the build's indexing time). Raw fields are matched as whole terms: document ids only.
    # ``name`` is matched word by word (term, prefix, fuzzy queries): frequencies, for BM25. ``stem`` keeps
    # positions: the query parser turns a word its tokenizer splits ("x_1") into a phrase. What a hit shows
    # but no query matches (the IRI, the name's predicate, its language tag) is stored and not indexed (format
    # 5): an indexed IRI cost about 2 µs a label (a unique term each), the three about 2 µs a document of
    # the 10M bench graph's 2M (issue 39).
    builder = tantivy.SchemaBuilder()
    builder.add_bytes_field("iri", stored=True, indexed=False)
    builder.add_text_field("name", stored=True, tokenizer_name="default", index_option="freq")
    # The same name stemmed, so "switches" finds "Switch".
    builder.add_text_field("stem", stored=False, tokenizer_name="en_stem")
    builder.add_text_field("exact", stored=False, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("ident", stored=False, tokenizer_name="raw", index_option="basic")
    builder.add_bytes_field("source", stored=True, indexed=False)
    # The name's language tag ("" untagged): search ranks the question's language first.
    builder.add_bytes_field("lang", stored=True, indexed=False)
    # The identifier forms of the IRI's local name, on its first name's document (format 4).
    builder.add_text_field("local", stored=False, tokenizer_name="raw", index_option="basic")
    return builder.build()


class FullTextIndex:
    """Names of IRIs in a tantivy index on disk."""

    def __init__(self, index: tantivy.Index, path: Path, meta: dict[str, object], primary: Iterable[str] = ()) -> None:
        """Wrap an opened index; use :meth:`build` or :meth:`open`."""
        self._index = index
        self._schema = index.schema
        self._searcher = index.searcher()
        self.path = path
        self.meta = meta
        self._primary = frozenset(primary)
        self.notes: tuple[str, ...] = tuple(str(n) for n in meta.get("notes", []) or [])  # type: ignore[attr-defined]
        # Text attributes rank after names, identifiers after both, at the same match tier.
        secondary = [str(s) for s in meta.get("secondary", []) or []]  # type: ignore[attr-defined]
        self._kinds = {**dict.fromkeys(secondary, 1), IDENTIFIER_SOURCE: 2, "iri": 2}
        self._local = meta.get("format_version") in _WITH_LOCAL

    def __len__(self) -> int:
        return int(self._searcher.num_docs)

    @classmethod
    def build(
        cls,
        path: Path,
        entries: Iterable[NameEntry],
        *,
        identifier_sources: Iterable[str] = (),
        endpoint_id: str = "",
        primary: Iterable[str] = (),
        notes: Sequence[str] = (),
        secondary_sources: Iterable[str] = (),
        detected: DetectedNames | None = None,
    ) -> FullTextIndex:
        """Write a fresh index of ``entries`` at ``path`` (an existing one there is replaced).

        Args:
            path: The index directory.
            entries: The names (from :func:`~saga_kgqa.tools.search.label_index.read_names`).
            identifier_sources: Predicates whose literals are identifiers: they are matched
                by identifier forms as well as by words.
            endpoint_id: The store's identity, recorded so a stale index is detected.
            primary: Sources of preferred names (``rdfs:label``).
            notes: Remarks on how the names were read (limits reached), kept with the index.
            secondary_sources: Predicates of text attributes (``nationality``), ranked after names.
            detected: The name detection the names were chosen by, recorded for :meth:`recorded_detection`.
        """
        if path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True, mode=0o700)  # its meta file names the source's endpoint
        index = new_index(path)
        writer = index.writer(heap_size=_WRITER_HEAP, num_threads=1)
        idents = frozenset(identifier_sources)
        seen_local: set[str] = set()
        count = 0
        for entry in entries:
            first = entry.resource not in seen_local
            seen_local.add(entry.resource)
            count += add_name(writer, entry, idents, first_of_resource=first)
        writer.commit()
        writer.wait_merging_threads()
        write_meta(path, endpoint_id, count, notes, secondary_sources, detected)
        return cls.open(path, primary=primary)

    @classmethod
    def open(cls, path: Path, *, primary: Iterable[str] = ()) -> FullTextIndex:
        """Open an index written by :meth:`build`.

        Raises:
            ConfigurationError: There is no index at ``path``, or it has another format.
        """
        try:
            meta = json.loads((path / META_FILE).read_text(encoding="utf-8"))
            index = tantivy.Index.open(str(path))
        except (OSError, ValueError) as exc:
            raise ConfigurationError(f"no full-text index at {path}: {exc}") from None
        if not isinstance(meta, dict) or meta.get("format_version") not in _READABLE:
            raise ConfigurationError(f"the full-text index at {path} has another format; rebuild it")
        index.reload()
        return cls(index, path, meta, primary)

    def recorded_detection(self) -> DetectedNames | None:
        """The name detection this index was built with (``None``: not recorded, an older index).

        A command opening a store's index reuses it instead of sampling every literal property again.
        """
        found = self.meta.get("detected")
        if not isinstance(found, dict):
            return None
        try:
            return DetectedNames(
                names=tuple(str(p) for p in found["names"]),
                texts=tuple(str(p) for p in found["texts"]),
                identifiers=tuple(str(p) for p in found["identifiers"]),
                compounds=tuple((str(a), str(b)) for a, b in found["compounds"]),
            )
        except (KeyError, TypeError, ValueError):
            return None

    def search(
        self,
        text: str,
        *,
        limit: int,
        accept: frozenset[str] | None = None,
        reject: frozenset[str] = frozenset(),
        language: str | None = None,
    ) -> list[NameMatch]:
        """Return the best-matching IRIs, best first, one match per IRI (see :class:`LabelIndex.search`).

        Names in ``language`` rank first within a match tier, then untagged names, then others.
        """
        query_text = normalise(text)
        words = _WORD.findall(query_text)
        if not query_text or limit <= 0:
            return []
        query = self._query(query_text, words, identifier_forms(text))
        wanted = limit * _CANDIDATES_PER_HIT + len(reject)
        hits = self._searcher.search(query, limit=wanted, count=False).hits
        best: dict[str, NameMatch] = {}
        query_forms = set(identifier_forms(text))
        for score, address in hits:
            doc = self._searcher.doc(address)
            resource = _stored(doc, "iri")
            if resource in reject or (accept is not None and resource not in accept):
                continue
            source = _stored(doc, "source")
            name = local_name(resource) if source == "iri" else str(doc.get_first("name"))
            kind = _kind(query_text, words, name, query_forms, source)
            tag = _stored(doc, "lang")
            bonus = min(score, 90.0) / 1000
            matches = [NameMatch(resource, name, source, kind, round(_SCORES[kind] + bonus, 4), tag)]
            own = local_name(resource) if self._local else ""
            if own and query_forms & set(identifier_forms(own)):
                # Found by its local name, which format 4 keeps on the IRI's first name's document.
                matches.append(NameMatch(resource, own, "iri", "exact", round(1.0 + bonus, 4), ""))
            for match in matches:
                current = best.get(resource)
                if current is None or self._rank(match, language) < self._rank(current, language):
                    best[resource] = match
        return sorted(best.values(), key=lambda match: self._rank(match, language))[:limit]

    def _query(self, query_text: str, words: list[str], forms: tuple[str, ...]) -> tantivy.Query:
        schema, occur = self._schema, tantivy.Occur.Should
        parts: list[tuple[tantivy.Occur, tantivy.Query]] = [
            (occur, tantivy.Query.boost_query(tantivy.Query.term_query(schema, "exact", query_text), 8.0))
        ]
        fields = ("ident", "local") if self._local else ("ident",)
        parts.extend(
            (occur, tantivy.Query.boost_query(tantivy.Query.term_query(schema, field, form), 6.0))
            for form in forms
            for field in fields
        )
        if words:
            every = [(tantivy.Occur.Must, tantivy.Query.term_query(schema, "name", w)) for w in words[:-1]]
            every.append((tantivy.Occur.Must, _prefix(schema, words[-1])))
            parts.append((occur, tantivy.Query.boost_query(tantivy.Query.boolean_query(every), 3.0)))
            fuzzy = [(occur, tantivy.Query.fuzzy_term_query(schema, "name", w, distance=_edits(w))) for w in words[:8]]
            parts.append((occur, tantivy.Query.boolean_query(fuzzy)))
            # Casefolded \w+ words hold no query-syntax operator, so the parser only tokenises (stems) them.
            stemmed = self._index.parse_query(" ".join(words[:8]), ["stem"], conjunction_by_default=True)
            parts.append((occur, tantivy.Query.boost_query(stemmed, 2.0)))
        return tantivy.Query.boolean_query(parts)

    def _rank(self, match: NameMatch, language: str | None) -> MatchRank:
        return match_rank(match, self._primary, self._kinds, language)


def new_index(path: Path) -> tantivy.Index:
    """A fresh, empty index at ``path`` with the name fields."""
    return tantivy.Index(_schema(), path=str(path))


def add_name(writer: tantivy.IndexWriter, entry: NameEntry, idents: frozenset[str], *, first_of_resource: bool) -> int:
    """Add one name (and, for an IRI's first name, its local name); return 1, or 0 for a blank node."""
    ident = entry.source in idents or entry.source == IDENTIFIER_SOURCE
    return add_fields(writer, entry.resource, entry.text, entry.source, entry.language, ident, first_of_resource)


def add_fields(
    writer: tantivy.IndexWriter, resource: str, text: str, source: str, language: str, ident: bool, first: bool
) -> int:
    """:func:`add_name` with the entry's fields apart: the streamed build calls it once per name, millions of times."""
    if resource.startswith("_:"):
        return 0
    # An IRI's local name is an identifier too (uniprot:P12345, prod-cat-Oscillator): its forms go on the
    # IRI's first name's document, matched by them only (a local name's words are not a name). A document
    # of their own was a quarter of the documents at 10M triples.
    # Built field by field: keyword arguments cost a quarter more per document, and an empty ``local`` or ``ident``
    # list about a microsecond (issue 39: the documents were a fifth of the build's CPU at 10M triples).
    document = tantivy.Document()
    add = document.add_text
    document.add_bytes("iri", resource.encode())
    add("name", text)
    add("stem", text)
    add("exact", normalise(text))
    if ident:
        for form in identifier_forms(text):
            add("ident", form)
    if first:
        for form in identifier_forms(local_name(resource)):
            add("local", form)
    document.add_bytes("source", (IDENTIFIER_SOURCE if ident else source).encode())
    document.add_bytes("lang", language.encode())
    writer.add_document(document)
    return 1


def write_meta(
    path: Path,
    endpoint_id: str,
    names: int,
    notes: Sequence[str],
    secondary_sources: Iterable[str] = (),
    detected: DetectedNames | None = None,
) -> None:
    """Record what the index at ``path`` was built from (its presence marks a finished build)."""
    meta: dict[str, object] = {
        "format_version": FORMAT_VERSION,
        "endpoint_id": endpoint_id,
        "names": names,
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "notes": list(notes),
        "secondary": sorted(set(secondary_sources)),
    }
    if detected is not None:
        meta["detected"] = {
            "names": list(detected.names),
            "texts": list(detected.texts),
            "identifiers": list(detected.identifiers),
            "compounds": [list(pair) for pair in detected.compounds],
        }
    write_private(path / META_FILE, json.dumps(meta, indent=1))


def _stored(doc: tantivy.Document, field: str) -> str:
    """A stored field's text: bytes in format 5, text before ("" when absent)."""
    value = doc.get_first(field)
    if isinstance(value, bytes):
        return value.decode()
    return "" if value is None else str(value)


def _edits(word: str) -> int:
    """Typos tolerated in one query word: none in short words, one, two from eight letters ("pontiometer")."""
    return 0 if len(word) < 4 else 1 if len(word) < 8 else 2


def _prefix(schema: tantivy.Schema, word: str) -> tantivy.Query:
    """Words starting with ``word`` (the last word of a query may be unfinished)."""
    return tantivy.Query.fuzzy_term_query(schema, "name", word, distance=0, prefix=True)


def _kind(query_text: str, words: list[str], name: str, query_forms: set[str], source: str) -> MatchKind:
    """How a retrieved name matched, with the same tiers as the in-memory index."""
    key = normalise(name)
    if key == query_text or (source in (IDENTIFIER_SOURCE, "iri") and query_forms & set(identifier_forms(name))):
        return "exact"
    if key.startswith(query_text):
        return "prefix"
    name_words = _WORD.findall(key)
    if all(any(nw.startswith(w) for nw in name_words) for w in words):
        return "words"
    if len(query_text) >= 3 and query_text in key:
        return "substring"
    return "fuzzy"

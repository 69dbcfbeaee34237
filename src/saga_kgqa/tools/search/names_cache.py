"""The name index of a plain run: in memory for a small graph, persistent full-text for a large one.

:class:`~saga_kgqa.tools.search.label_index.LabelIndex` scans every name per search in
Python and is rebuilt in every process: at 1,000,000 names a search took 7.9 s and the
build 50 s (``bench/autoschema.py``). Named sources already search a tantivy index built
once (:mod:`saga_kgqa.sources.resolution`). A plain ``--data`` run over files, whose
content has a stable identity (the store's ``embedded:files:<digest>`` id), gets the same:
above ``threshold`` names the index is written to the cache, keyed by that id, and every
later run opens it in milliseconds without reading a name. Other graphs (a remote
endpoint, whose content may change; a store directory) keep the in-memory index.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from saga_kgqa.errors import ConfigurationError, QueryTimeout
from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.private_files import UnsafeCacheDir, entry_key, is_own_entry, mark_entry, private_root
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.schema.cache_dir import default_survey_dir
from saga_kgqa.tools.graph_reads import Reads
from saga_kgqa.tools.search.background_index import pending_build, pending_note
from saga_kgqa.tools.search.label_index import LabelIndex, NameEntry, NameIndex, read_names, schema_entries
from saga_kgqa.tools.search.name_detection import DetectedNames, read_compound_names

if TYPE_CHECKING:
    # tantivy is imported only when a graph is large enough to need it (start-up time, issue 11).
    from saga_kgqa.tools.search.fulltext import FullTextIndex

#: Names above which a plain run over files gets a persistent full-text index.
DEFAULT_FULLTEXT_NAMES = 100_000
#: Indexes kept in the cache; the least recently opened go first (an index of 1M names is ~100 MB).
MAX_CACHED_INDEXES = 8
_CONTENT_KEYED = "embedded:files:"
#: Directory inside a ``saga load`` store that holds its full-text name index.
STORE_FULLTEXT_DIR = "saga-fulltext"


def names_dir(identity: str) -> Path | None:
    """Where the persistent name index of an index identity lives (``None``: no stable identity)."""
    if not identity.startswith(_CONTENT_KEYED):
        return None
    digest = hashlib.sha256(identity.encode()).hexdigest()[:24]
    return default_survey_dir() / "names" / digest


def index_identity(
    endpoint_id: str, predicates: Sequence[str], schema_entries: Sequence[NameEntry], cap: int, language: str = ""
) -> str:
    """What a name index is built from: the graph's content, the name predicates and language, the cap, the schema."""
    digest = hashlib.sha256()
    for part in (language, *predicates, str(cap), *(f"{e.resource} {e.text}" for e in schema_entries)):
        digest.update(part.encode())
        digest.update(b"\0")
    return f"{endpoint_id}#names:{digest.hexdigest()[:24]}"


def open_name_index(
    reads: Reads,
    endpoint_id: str,
    predicates: Sequence[str],
    schema: SchemaIndex,
    *,
    primary: Sequence[str],
    max_names_per_predicate: int,
    threshold: int = DEFAULT_FULLTEXT_NAMES,
    detected: DetectedNames | None = None,
    store_dir: Path | None = None,
) -> NameIndex:
    """Open the graph's cached full-text index, else read its names and index them.

    Args:
        reads: Query helper for reading the names.
        endpoint_id: The graph's identity (decides whether an index may be cached).
        predicates: Name predicates to read.
        schema: The schema index, whose classes and properties are searchable by name too.
        primary: Sources of preferred names (``rdfs:label``).
        max_names_per_predicate: LIMIT of each name query.
        threshold: Names above which the index is written to the cache.
        detected: Names found in the data (:mod:`~saga_kgqa.tools.search.name_detection`): their
            predicates are read too, texts and identifiers rank after names, compound names are added.
        store_dir: The embedded store's directory, when the graph is one: the index ``saga load``
            built in it is opened, and a new one is streamed from the store (every name, bounded memory).

    Returns:
        The full-text index when one is cached or the graph has more than ``threshold``
        names and a stable identity; the in-memory index otherwise.
    """
    if store_dir is not None:
        loaded = loaded_store_index(store_dir, endpoint_id, primary)
        if loaded is not None:
            return loaded
    from_schema = schema_entries(schema)
    detected = detected or DetectedNames()
    predicates = tuple(dict.fromkeys([*predicates, *detected.predicates]))
    pairs = [f"{first}+{last}" for first, last in detected.compounds]
    # Names of every language are indexed with their tags (search ranks the question's): one index for all.
    keyed = (*predicates, *pairs, "texts:", *detected.texts, "identifiers:", *detected.identifiers)
    identity = index_identity(endpoint_id, keyed, from_schema, max_names_per_predicate, "tagged")
    where = names_dir(identity)
    pending = store_dir is not None and pending_build(store_dir) is not None
    if pending:
        where = None  # `saga load --index background` is building the store's index: no second build
    if where is not None:
        cached = _open(where, identity, primary)
        if cached is not None:
            return cached
    if (
        where is not None
        and store_dir is not None
        and _more_names_than(reads, predicates, threshold)
        and _private_parent(where)  # creates names/: only when an index will be written there
    ):
        compounds = read_compound_names(reads, detected.compounds, max_names=max_names_per_predicate)
        extra = [*compounds, *from_schema]
        return _stream(where, store_dir, predicates, extra, identity, primary, detected)
    start = len(reads.notes)
    if pending and store_dir is not None:
        reads.notes.append(pending_note(store_dir))
    entries = read_names(reads, predicates, max_names_per_predicate=max_names_per_predicate)
    entries.extend(read_compound_names(reads, detected.compounds, max_names=max_names_per_predicate))
    entries.extend(from_schema)
    notes = reads.notes[start:]
    if where is not None and len(entries) > threshold:
        return _build(where, entries, identity, primary, notes, detected)
    return LabelIndex(entries, primary=primary, notes=notes, secondary=detected.texts, identifiers=detected.identifiers)


def _private_parent(where: Path) -> bool:
    """Whether ``names/`` is a real directory of this user that no one else can write (else nothing is cached)."""
    try:
        private_root(where.parent.parent)
        private_root(where.parent)
    except UnsafeCacheDir:
        return False
    return True


def loaded_store_index(store_dir: Path, endpoint_id: str, primary: Sequence[str]) -> FullTextIndex | None:
    """The index ``saga load`` built inside the store, when it is of the store's present content."""
    where = store_dir / STORE_FULLTEXT_DIR
    if not where.is_dir():
        return None
    from saga_kgqa.tools.search.fulltext import FullTextIndex

    try:
        index = FullTextIndex.open(where, primary=primary)
    except ConfigurationError:
        return None  # unreadable or of another format: read or stream the names instead
    return index if index.meta.get("endpoint_id") == endpoint_id else None


def _more_names_than(reads: Reads, predicates: Sequence[str], threshold: int) -> bool:
    """Whether the predicates hold over ``threshold`` triples (counted engine-side, at most ``threshold + 1``)."""
    total = 0
    for predicate in predicates:
        try:
            capped = f"SELECT ?s WHERE {{ ?s {iri(predicate)} ?o }} LIMIT {threshold + 1}"
            rows = reads.select(f"SELECT (COUNT(*) AS ?n) WHERE {{ {capped} }}", limit=1).rows
        except QueryTimeout:
            continue  # not counted: reading the names says what timed out

        total += int(rows[0]["n"].value) if rows and "n" in rows[0] else 0
        if total > threshold:
            return True
    return False


def _stream(
    where: Path,
    store_dir: Path,
    predicates: Sequence[str],
    extra: Sequence[NameEntry],
    identity: str,
    primary: Sequence[str],
    detected: DetectedNames,
) -> FullTextIndex:
    from saga_kgqa.tools.search.store_names import StoreNames
    from saga_kgqa.tools.search.streamed_build import build_from_store

    index = build_from_store(
        where,
        StoreNames(store_dir, predicates),
        endpoint_id=identity,
        extra=extra,
        identifier_sources=detected.identifiers,
        secondary_sources=detected.texts,
        primary=primary,
        detected=detected,
    )
    mark_entry(where, _key(identity))  # ours and of this content: later runs open it
    _evict(where.parent, keep=where)
    return index


def _open(where: Path, identity: str, primary: Sequence[str]) -> FullTextIndex | None:
    if not where.is_dir() or not _private_parent(where) or entry_key(where) != _key(identity):
        return None  # absent, not ours, or not built from this content
    from saga_kgqa.tools.search.fulltext import FullTextIndex

    try:
        index = FullTextIndex.open(where, primary=primary)
    except ConfigurationError:
        return None  # absent, unreadable or of another format: read the names again
    if index.meta.get("endpoint_id") != identity:
        return None
    with contextlib.suppress(OSError):
        os.utime(where)  # recently used: eviction takes the others first
    return index


def _build(
    where: Path,
    entries: list[NameEntry],
    identity: str,
    primary: Sequence[str],
    notes: Sequence[str],
    detected: DetectedNames,
) -> NameIndex:
    from saga_kgqa.tools.search.fulltext import FullTextIndex

    if not _private_parent(where):  # a symlinked or shared names/: an index in memory, nothing written
        return _in_memory(entries, primary, notes, detected)
    # Written aside and renamed into place: two runs building at once never see half an index.
    # Unique per build (mkdtemp): two threads of one server may build the same index at once.
    scratch = Path(tempfile.mkdtemp(prefix=f"{where.name}.building-", dir=where.parent))

    def build(path: Path) -> FullTextIndex:
        return FullTextIndex.build(
            path,
            entries,
            endpoint_id=identity,
            primary=primary,
            notes=notes,
            identifier_sources=detected.identifiers,
            secondary_sources=detected.texts,
            detected=detected,
        )

    build(scratch)
    mark_entry(scratch, _key(identity))
    try:
        scratch.rename(where)
    except OSError:
        # Another run put its index there first (or a stale one is in the way): use a valid one, else ours.
        shutil.rmtree(scratch, ignore_errors=True)
        found = _open(where, identity, primary)
        if found is not None:
            return found
        if not (is_own_entry(where) or _owned_directory(where)):
            return _in_memory(entries, primary, notes, detected)  # not ours to delete
        with contextlib.suppress(OSError):
            shutil.rmtree(where)
        built = build(where)
        mark_entry(where, _key(identity))
        return built
    _evict(where.parent, keep=where)
    return FullTextIndex.open(where, primary=primary)


def _owned_directory(path: Path) -> bool:
    """A real directory of this user (an index an earlier version built, unmarked, in the private ``names/``)."""
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()


def _key(identity: str) -> str:
    """The content key an index's marker records."""
    return hashlib.sha256(identity.encode()).hexdigest()


def _in_memory(
    entries: list[NameEntry], primary: Sequence[str], notes: Sequence[str], detected: DetectedNames
) -> NameIndex:
    """The in-memory index, for when the cache directory cannot be trusted."""
    return LabelIndex(
        entries,
        primary=primary,
        notes=[*notes, "name cache directory not private: index kept in memory"],
        secondary=detected.texts,
        identifiers=detected.identifiers,
    )


def _evict(parent: Path, *, keep: Path, most: int = MAX_CACHED_INDEXES) -> None:
    """Delete the least recently used indexes beyond ``most`` (never ``keep``, never one being built).

    Only entries this user's cache built and marked count and go; anything else in the
    directory is left alone. A run still searching a deleted index keeps its open files
    (POSIX); its next run rebuilds it.
    """
    with contextlib.suppress(OSError):
        built = [p for p in parent.iterdir() if ".building-" not in p.name and p != keep and is_own_entry(p)]
        built.sort(key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in built[max(most - 1, 0) :]:
            shutil.rmtree(stale, ignore_errors=True)

"""Loading RDF files into an embedded store: format sniffing, entity bombs, BOMs and atomic builds.

* RDF/XML may declare DTD entities, which pyoxigraph expands: 769 bytes of nested entities
  ("billion laughs") exhausted 24 GB. Before a file is parsed, its DOCTYPE is read and
  external, parameter and nested entities are refused, as is a document whose references
  would expand to more than :data:`MAX_ENTITY_EXPANSION_BYTES` (plus 8x its size). The plain
  namespace abbreviations of ordinary OWL files (``<!ENTITY owl "http://...#">``) still load.
* A UTF-8 byte order mark at the start of a file is skipped (pyoxigraph rejects it with an
  error that shows the invisible character).
* A token over pyoxigraph's 16 MiB parser buffer (one huge literal) is a typed error.
* A syntax error names the file, line and column (RDF/XML's placed by
  :mod:`~saga_kgqa.kg.embedded.lenient`, pyoxigraph gives none). ``lenient=True`` (``saga load
  --lenient``) parses first with pyoxigraph's lenient mode, blanks out what does not parse,
  loads the rest and reports each part skipped; what cannot be placed is still refused whole.
* :func:`build_store` loads into a directory beside the target and renames it into place
  only when every file loaded, so a failed ``saga load good.ttl bad.ttl --store S`` leaves
  ``S`` as it was. Appending starts from a hard-linked checkpoint of ``S``, not a copy, and
  the store records a content key (the digest of the files loaded, chained on appends), the
  identity its surveys, schemas and name index are kept under.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import pyoxigraph as ox

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.embedded.lenient import Skipped, error_position, locate_xml_error, repair
from saga_kgqa.kg.embedded.oxigraph_terms import rdf_format_for

# An RDF/XML document starts with a declaration, a comment/doctype, or a root element
# whose name is followed by whitespace (it must declare its namespaces), such as
# ``<rdf:RDF xmlns...``. A Turtle file may also start with ``<``, but with an IRI
# (``<http://...>``, ``<urn:x>``) that never contains whitespace.
_XML_START = re.compile(rb"<(\?xml|!|[A-Za-z_][\w.-]*(:[A-Za-z_][\w.-]*)?\s)")
_HASH_CHUNK_BYTES = 1 << 20
_BOM = b"\xef\xbb\xbf"
#: Bytes of entity text a document may expand to, beyond eight times its own size.
MAX_ENTITY_EXPANSION_BYTES = 64 * 1024 * 1024
_PROLOG_LIMIT = 1 << 20
_DOCTYPE = re.compile(rb"<!DOCTYPE\s[^\[>]*\[(?P<subset>.*?)\]\s*>", re.DOTALL)
_ENTITY = re.compile(rb"<!ENTITY\s+(?P<percent>%\s+)?(?P<name>[^\s]+)\s+(?P<rest>[^>]*)>", re.DOTALL)
_REFERENCE = re.compile(rb"&([A-Za-z_][\w.-]*);")
_PARSER_BUFFER = "buffer maximal size"
#: File in a ``saga load`` store naming its content (one key with the store cache's entries).
CONTENT_FILE = "saga-content.json"


def sniff_rdf_format(path: Path) -> ox.RdfFormat:
    """Return the serialisation of an RDF file, looking inside ``.owl`` files (RDF/XML or Turtle).

    Raises:
        ValueError: The suffix is not a known RDF serialisation.
    """
    if path.suffix.lower() == ".owl":
        with path.open("rb") as handle:
            head = handle.read(512).removeprefix(_BOM).lstrip()
        return ox.RdfFormat.RDF_XML if _XML_START.match(head) else ox.RdfFormat.TURTLE
    return rdf_format_for(path.suffix)


def content_digest(paths: Iterable[Path]) -> str:
    """Return a digest of the files' bytes, independent of their order and names.

    A store built from files in a fresh temporary directory needs an identity that is
    the same on every run, or recorded queries (record/replay cache) would never match.
    """
    digests = []
    for path in paths:
        file_hash = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(_HASH_CHUNK_BYTES):
                file_hash.update(chunk)
        digests.append(file_hash.hexdigest())
    return hashlib.sha256("\n".join(sorted(digests)).encode()).hexdigest()


def check_xml_entities(path: Path) -> None:
    """Refuse an RDF/XML file whose DTD entities could expand without bound.

    Raises:
        ConfigurationError: The file declares external, parameter or nested entities, its
            DOCTYPE is over 1 MiB, or its references would expand past the cap.
    """
    with path.open("rb") as handle:
        head = handle.read(_PROLOG_LIMIT)
    if b"<!ENTITY" not in head and b"<!DOCTYPE" not in head:
        return
    doctype = _DOCTYPE.search(head)
    if doctype is None:
        if b"<!ENTITY" in head:
            raise ConfigurationError(f"cannot load {path}: its DOCTYPE with entity declarations is over 1 MiB")
        return
    sizes: dict[bytes, int] = {}
    for entity in _ENTITY.finditer(doctype.group("subset")):
        name, rest = entity.group("name"), entity.group("rest").strip()
        if entity.group("percent"):
            raise ConfigurationError(f"cannot load {path}: parameter entity %{name.decode()} is not allowed")
        if rest.startswith((b"SYSTEM", b"PUBLIC")):
            raise ConfigurationError(
                f"cannot load {path}: external entity {name.decode()} is not allowed (it would read another file)"
            )
        if _REFERENCE.search(rest):
            raise ConfigurationError(
                f"cannot load {path}: entity {name.decode()} refers to another entity; nested entities "
                "can expand exponentially (billion laughs) and are not allowed"
            )
        sizes[name] = len(rest)
    if sizes:
        _check_expansion(path, sizes, doctype.end())


def _check_expansion(path: Path, sizes: dict[bytes, int], body_start: int) -> None:
    size = path.stat().st_size
    budget = MAX_ENTITY_EXPANSION_BYTES + 8 * size
    expanded = 0
    tail = b""
    with path.open("rb") as handle:
        handle.seek(body_start)
        while chunk := handle.read(_HASH_CHUNK_BYTES):
            text = tail + chunk
            # A reference may straddle two chunks: keep the unfinished end for the next round.
            cut = max(text.rfind(b"&"), len(text) - 256) if b"&" in text[-256:] else len(text)
            for match in _REFERENCE.finditer(text, 0, cut):
                expanded += sizes.get(match.group(1), 0)
            if expanded > budget:
                raise ConfigurationError(
                    f"cannot load {path}: its entity references would expand to over {budget} bytes "
                    f"({size} bytes on disk); expand the entities in the file instead"
                )
            tail = text[cut:]
    expanded += sum(sizes.get(match.group(1), 0) for match in _REFERENCE.finditer(tail))
    if expanded > budget:
        raise ConfigurationError(f"cannot load {path}: its entity references would expand to over {budget} bytes")


def _load_one(store: ox.Store, path: Path, *, lenient: bool = False) -> list[Skipped]:
    if not path.is_file():
        raise ConfigurationError(f"RDF file not found: {path}")
    try:
        fmt = sniff_rdf_format(path)
        if fmt == ox.RdfFormat.RDF_XML:
            check_xml_entities(path)
        if lenient:
            # Parsed (and mended) before anything is written: a failed bulk load leaves its first triples behind.
            data, skipped = repair(path, path.read_bytes().removeprefix(_BOM), fmt)
            store.bulk_load(input=data, format=fmt, lenient=True)
            return skipped
        with path.open("rb") as handle:
            if handle.read(len(_BOM)) == _BOM:
                store.bulk_load(input=handle, format=fmt)  # the handle is past the BOM
                return []
        store.bulk_load(path=str(path), format=fmt)
        return []
    except SyntaxError as exc:
        raise ConfigurationError(f"cannot load {_where(path, exc)}: {exc}") from exc
    except ValueError as exc:
        raise ConfigurationError(f"cannot load {path}: {exc}") from exc
    except MemoryError as exc:
        if _PARSER_BUFFER in str(exc):
            raise ConfigurationError(
                f"cannot load {path}: one literal or IRI is over the parser's 16 MiB buffer ({exc})"
            ) from None
        raise ConfigurationError(f"cannot load {path}: out of memory while loading it") from None


def _where(path: Path, exc: SyntaxError) -> str:
    """The file, line and column of a syntax error (RDF/XML's found by reading the file again)."""
    position = error_position(exc)
    if position is None and sniff_rdf_format(path) == ox.RdfFormat.RDF_XML:
        found = locate_xml_error(path.read_bytes().removeprefix(_BOM))
        position = found[:2] if found is not None else None
    return f"{path}, line {position[0]}, column {position[1]}" if position is not None else str(path)


def load_files(
    store_dir: Path,
    paths: Iterable[Path],
    *,
    loaded: Callable[[Path], None] | None = None,
    optimize: bool = True,
    lenient: bool = False,
    skipped: Callable[[Skipped], None] | None = None,
) -> int:
    """Bulk-load RDF files into a (new or existing) store directory, in place.

    Use :func:`build_store` for a store that must stay intact when a file fails.

    Args:
        store_dir: Directory of the on-disk store; created when missing.
        paths: RDF files to load.
        loaded: Called after each file.
        optimize: Compact the whole store afterwards (an append skips it: it would rewrite every file).
        lenient: Load what parses, leaving out what does not (see the module docstring).
        skipped: Called with each part a lenient load left out.

    Returns:
        The number of triples in the store afterwards.

    Raises:
        ConfigurationError: A file is missing, of an unknown type, not valid RDF, or an entity bomb.
    """
    store_dir.mkdir(parents=True, exist_ok=True)
    store = ox.Store(str(store_dir))
    try:
        for path in paths:
            for part in _load_one(store, path, lenient=lenient):
                if skipped is not None:
                    skipped(part)
            if loaded is not None:
                loaded(path)
        store.flush()
        if optimize:
            store.optimize()
        return len(store)
    finally:
        del store


def read_content_key(store_dir: Path) -> str | None:
    """The content key ``saga load`` recorded in a store (``None``: none, or unreadable)."""
    try:
        saved = json.loads((store_dir / CONTENT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    key = saved.get("content") if isinstance(saved, dict) else None
    return key if isinstance(key, str) and re.fullmatch(r"[0-9a-f]{64}", key) else None


def _record_content(building: Path, previous: str | None, paths: Sequence[Path], fresh: bool) -> None:
    """Write the store's content key: the files' digest, or (appending) a digest of the old key and theirs."""
    added = content_digest(paths)
    if fresh:
        key: str | None = added
    elif previous is not None:
        key = hashlib.sha256(f"{previous}\n{added}".encode()).hexdigest()
    else:
        key = None  # a store of unknown content stays without a key (its identity is its path)
    (building / CONTENT_FILE).unlink(missing_ok=True)
    if key is not None:
        (building / CONTENT_FILE).write_text(json.dumps({"content": key}), encoding="utf-8")


def _snapshot(target: Path, building: Path) -> None:
    """Start ``building`` from the store at ``target`` without copying its data.

    A RocksDB checkpoint hard-links the store's immutable files (on one file system), so
    appending to a 30 GB store does not first copy 30 GB; loading then writes new files only.
    Saga's own files beside the data (prefixes, content key) are copied; the name index is
    not, since the appended store has other content and gets its own.
    """
    source = ox.Store(str(target))
    try:
        source.backup(str(building))
    finally:
        del source
    for entry in target.iterdir():
        if entry.is_file() and entry.name.startswith("saga-") and not (building / entry.name).exists():
            shutil.copy2(entry, building / entry.name)


def remove_dead_builds(target: Path) -> list[Path]:
    """Remove the build folders (``.S.building-PID``, ``.S.replaced-PID``) that loads of ``target`` left when killed.

    A folder is removed only when its process is gone: a load still running keeps its own. A load
    killed between its two renames left no store but the old one as ``.S.replaced-PID``: that is put
    back in place, not removed. Returns the folders removed.
    """
    pattern = re.compile(rf"^\.{re.escape(target.name)}\.(building|replaced)-(\d+)$")
    removed: list[Path] = []
    try:
        entries = list(target.parent.iterdir())
    except OSError:
        return removed
    for entry in entries:
        found = pattern.match(entry.name)
        if found is None or _alive(int(found[2])) or entry.is_symlink() or not entry.is_dir():
            continue
        if found[1] == "replaced" and not target.exists():
            entry.rename(target)
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # this load's own folders are handled by the load itself
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's live process (or not a pid we can judge): left alone
    return True


def build_store(
    store_dir: Path,
    paths: Iterable[Path],
    *,
    finish: Callable[[Path], None] | None = None,
    loaded: Callable[[Path], None] | None = None,
    lenient: bool = False,
    skipped: Callable[[Skipped], None] | None = None,
) -> int:
    """Load RDF files into ``store_dir`` atomically: all of them, or the directory is left as it was.

    The store is built in a sibling directory (a hard-linked snapshot of ``store_dir`` when it
    exists), then renamed into place. ``finish`` runs on the built directory before the rename
    (to save the files' prefixes beside the store, say); ``loaded`` after each file; ``lenient`` and
    ``skipped`` as :func:`load_files`. The store
    records a content key (:data:`CONTENT_FILE`) that identifies what it holds.

    Returns:
        The number of triples in the store afterwards.

    Raises:
        ConfigurationError: A file cannot be loaded (``store_dir`` is unchanged), or
            ``store_dir`` exists and is not a directory.
    """
    files = list(paths)
    target = store_dir.resolve()
    if target.exists() and not target.is_dir():
        raise ConfigurationError(f"store directory {store_dir} is a file")
    target.parent.mkdir(parents=True, exist_ok=True)
    building = target.with_name(f".{target.name}.building-{os.getpid()}")
    retired = target.with_name(f".{target.name}.replaced-{os.getpid()}")
    remove_dead_builds(target)
    shutil.rmtree(building, ignore_errors=True)
    fresh = not target.exists()
    try:
        previous = None if fresh else read_content_key(target)
        if not fresh:
            _snapshot(target, building)
        count = load_files(building, files, loaded=loaded, optimize=fresh, lenient=lenient, skipped=skipped)
        _record_content(building, previous, files, fresh)
        if finish is not None:
            finish(building)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    if target.exists():
        target.rename(retired)
    building.rename(target)
    shutil.rmtree(retired, ignore_errors=True)
    return count

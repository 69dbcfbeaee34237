"""A bounded cache of read-only stores built from RDF files, keyed by the files' content.

``saga sparql --data f.ttl`` run dozens of times while exploring a graph would bulk-load
``f.ttl`` into a fresh temporary RocksDB store every time (~0.3 s of a 1 s command, the
deletion included). The cache keeps the built store under ``~/.cache/saga-kgqa/stores``
(``$SAGA_STORE_CACHE_DIR``; ``off`` turns it off) and opens it read-only on the next run of
the same bytes:

* The key is a digest of every file's bytes and RDF format, the loader's version and
  pyoxigraph's, so an edited file (or another pyoxigraph storage format) gets a new store.
* Creation is atomic: a store is built in a ``saga-store-<pid>-…`` directory beside the
  entries and renamed into place only when every file loaded. Two processes building the
  same entry both succeed and the second discards its copy; a builder killed midway leaves a
  directory that :func:`~saga_kgqa.kg.embedded.stale_stores.sweep_stale_stores` deletes later.
* The cache is bounded (``$SAGA_STORE_CACHE_MB``, default :data:`DEFAULT_MAX_MB`): after an
  insert, the least recently used entries go until the total fits. A process using an entry
  holds a shared ``flock`` on its lock file, and eviction takes it exclusively without
  waiting, so an entry in use is never deleted. Files too large for the bound are cached
  alone (every unused entry goes) when the disk keeps 10% free after them, else not at all.
* A file's digest is memoised by path, size, mtime and inode (:class:`DigestMemo`), so a large
  file is hashed once, not by every command.
* The root must belong to the current user (created ``0700``): another user's directory could
  hand us a store they wrote.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.embedded.loading import load_files, sniff_rdf_format
from saga_kgqa.kg.embedded.stale_stores import STORE_PREFIX, sweep_stale_stores
from saga_kgqa.private_files import UnsafeCacheDir, entry_key, is_own_entry, mark_entry, private_root

CACHE_ENV = "SAGA_STORE_CACHE_DIR"
SIZE_ENV = "SAGA_STORE_CACHE_MB"
#: Total size of the cached stores, in MiB, when ``$SAGA_STORE_CACHE_MB`` is unset.
DEFAULT_MAX_MB = 1024
#: Bump when :func:`~saga_kgqa.kg.embedded.loading.load_files` changes what it writes.
LOADER_VERSION = "1"
_BUILDING_PREFIX = STORE_PREFIX
_HASH_CHUNK_BYTES = 1 << 20
#: A store takes a few times its source's bytes (an upper estimate).
_STORE_BYTES_PER_INPUT_BYTE = 4
#: Share of the disk left free when an input over the bound is cached.
_FREE_SHARE_KEPT = 0.1
#: File in the cache root memoising file digests.
MEMO_FILE = "digests.json"
#: Digests memoised at most.
MEMO_ENTRIES = 256


@dataclass(frozen=True)
class CachedStore:
    """An entry in use: its directory, the content digest of its files and the lease on it."""

    store_dir: Path
    content_digest: str
    lease_fd: int

    def release(self) -> None:
        """Drop the shared lock, so the entry may be evicted again."""
        with contextlib.suppress(OSError):
            os.close(self.lease_fd)


def default_root() -> Path | None:
    """The cache directory: ``$SAGA_STORE_CACHE_DIR``, else ``$XDG_CACHE_HOME`` or ``~/.cache``; ``None`` when off."""
    raw = os.environ.get(CACHE_ENV, "").strip()
    if raw.lower() == "off":
        return None
    if raw:
        return Path(raw)
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".cache") / "saga-kgqa" / "stores"


def max_bytes_from_env() -> int:
    """The cache's size bound in bytes, from ``$SAGA_STORE_CACHE_MB`` or the default.

    Raises:
        ConfigurationError: The variable is not a whole number of MiB.
    """
    raw = os.environ.get(SIZE_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_MB * 1024 * 1024
    if not raw.isdigit():
        raise ConfigurationError(f"{SIZE_ENV} must be a whole number of MiB, not {raw!r}")
    return int(raw) * 1024 * 1024


def file_digests(paths: Sequence[Path], memo: DigestMemo | None = None) -> tuple[str, str]:
    """Hash the files once; return (cache key, content digest as in ``loading.content_digest``).

    Args:
        paths: The RDF files.
        memo: Digests of files hashed before, by path, size, mtime and inode (the file is not read again).

    Raises:
        ConfigurationError: A file is missing or unreadable.
    """
    per_file: list[tuple[str, str]] = []
    for path in paths:
        try:
            fmt = sniff_rdf_format(path)
            known = memo.get(path) if memo is not None else None
            hexdigest = known if known is not None else hash_file(path)
            if memo is not None and known is None:
                memo.put(path, hexdigest)
        except OSError as exc:
            raise ConfigurationError(f"cannot read RDF file {path}: {exc}") from exc
        per_file.append((hexdigest, fmt.media_type))
    content = hashlib.sha256("\n".join(sorted(d for d, _ in per_file)).encode()).hexdigest()
    keyed = "\n".join([f"loader {LOADER_VERSION}", f"pyoxigraph {ox.__version__}", *sorted(map(" ".join, per_file))])
    return hashlib.sha256(keyed.encode()).hexdigest()[:40], content


def hash_file(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_HASH_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


class DigestMemo:
    """File digests kept in the cache root, so a 10 GB file is not hashed again by every command.

    An entry is keyed by the file's resolved path, size, modification time (ns) and inode:
    an edited or replaced file misses and is hashed again. At most :data:`MEMO_ENTRIES` are
    kept; the file is rewritten atomically, and a lost race only costs one hash later.
    """

    def __init__(self, path: Path) -> None:
        """Use the memo file at ``path`` (read now; absent or unreadable means empty)."""
        self._path = path
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            loaded = {}
        self._entries: dict[str, str] = (
            {k: v for k, v in loaded.items() if isinstance(k, str) and isinstance(v, str)}
            if isinstance(loaded, dict)
            else {}
        )

    @staticmethod
    def _key(path: Path) -> str:
        info = path.stat()
        return f"{path.resolve()}|{info.st_size}|{info.st_mtime_ns}|{info.st_ino}"

    def get(self, path: Path) -> str | None:
        """The digest recorded for this very file, or ``None``."""
        return self._entries.get(self._key(path))

    def put(self, path: Path, digest: str) -> None:
        """Record a file's digest (best effort: an unwritable cache keeps none)."""
        self._entries[self._key(path)] = digest
        while len(self._entries) > MEMO_ENTRIES:
            self._entries.pop(next(iter(self._entries)))
        with contextlib.suppress(OSError):
            fd, scratch = tempfile.mkstemp(prefix=".digests-", dir=self._path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(self._entries, handle)
            os.replace(scratch, self._path)


class StoreCache:
    """Get-or-build read-only stores for sets of RDF files under one directory."""

    def __init__(self, root: Path, *, max_bytes: int) -> None:
        """Use ``root`` (created when missing) with a bound of ``max_bytes`` in all."""
        self._root = root
        self._max_bytes = max_bytes

    @property
    def root(self) -> Path:
        """The cache directory."""
        return self._root

    def acquire(self, paths: Sequence[Path]) -> CachedStore | None:
        """Return a leased store of ``paths``, building it when missing; ``None`` when it cannot be cached.

        ``None`` means: the files are too large for the bound, or the root is unusable (not
        ours, not writable). The caller then builds a temporary store as before.

        Raises:
            ConfigurationError: A file is missing, unreadable or not valid RDF.
        """
        for path in paths:
            if not path.is_file():
                raise ConfigurationError(f"RDF file not found: {path}")
        if not self._usable_root():
            return None
        needed = sum(path.stat().st_size for path in paths) * _STORE_BYTES_PER_INPUT_BYTE
        # Over the bound, an input is still cached (alone: the others are evicted) when the disk has room,
        # so a large graph given as files is loaded once, not by every command.
        if needed > self._max_bytes and not self._disk_has_room(needed):
            return None
        key, content = file_digests(paths, DigestMemo(self._root / MEMO_FILE))
        lease = os.open(self._root / f"{key}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(lease, fcntl.LOCK_SH)
            entry = self._root / key
            if not entry.is_dir():
                self._build(entry, paths)
                self._evict(keep=entry)
            elif entry_key(entry) != key and not self._adopt(entry, key):
                os.close(lease)
                return None  # not built by this cache from these files: never served
            os.utime(entry)  # the entry's mtime orders eviction (least recently used first)
        except BaseException:
            os.close(lease)
            raise
        return CachedStore(entry, content, lease)

    def _disk_has_room(self, needed: int) -> bool:
        try:
            usage = shutil.disk_usage(self._root)
        except OSError:
            return False
        return usage.free - needed > usage.total * _FREE_SHARE_KEPT

    def _usable_root(self) -> bool:
        # Ours alone: a root others can write could hold a planted store that answers for our files.
        try:
            private_root(self._root)
        except (UnsafeCacheDir, OSError):
            return False
        return os.access(self._root, os.W_OK)

    def _adopt(self, entry: Path, key: str) -> bool:
        """Mark an unmarked entry an earlier version built: a real directory of this user in this private root."""
        try:
            info = entry.lstat()
        except OSError:
            return False
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or entry_key(entry) is not None:
            return False  # another user's, a link, or marked for other content
        mark_entry(entry, key)
        return True

    def _build(self, entry: Path, paths: Sequence[Path]) -> None:
        sweep_stale_stores(self._root)  # builders that died midway
        building = Path(tempfile.mkdtemp(prefix=f"{_BUILDING_PREFIX}{os.getpid()}-", dir=self._root))
        try:
            load_files(building, paths)
            mark_entry(building, entry.name)
            try:
                building.rename(entry)
            except OSError:
                if not entry.is_dir():
                    raise
                shutil.rmtree(building, ignore_errors=True)  # another process built it first
        except BaseException:
            shutil.rmtree(building, ignore_errors=True)
            raise

    def _evict(self, *, keep: Path) -> None:
        entries = [path for path in self._root.iterdir() if len(path.name) == 40 and is_own_entry(path)]
        sizes = {path: _tree_bytes(path) for path in entries}
        total = sum(sizes.values())
        for path in sorted(entries, key=_mtime):
            if total <= self._max_bytes:
                return
            if path == keep:
                continue
            if self._delete_unused(path):
                total -= sizes[path]

    def _delete_unused(self, entry: Path) -> bool:
        try:
            lock = os.open(self._root / f"{entry.name}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        except OSError:
            return False
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(lock)
            return False  # in use by another process
        try:
            # Renamed first, so no reader ever sees a half-deleted entry under its key.
            doomed = entry.with_name(f"{_BUILDING_PREFIX}{os.getpid()}-evicted-{entry.name}")
            entry.rename(doomed)
            shutil.rmtree(doomed, ignore_errors=True)
            return True
        except OSError:
            return False
        finally:
            os.close(lock)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _tree_bytes(path: Path) -> int:
    total = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            with contextlib.suppress(OSError):
                total += os.stat(os.path.join(dirpath, name)).st_size
    return total


def open_cache() -> StoreCache | None:
    """The cache the environment configures, or ``None`` when it is off.

    Raises:
        ConfigurationError: ``$SAGA_STORE_CACHE_MB`` is malformed.
    """
    root = default_root()
    return None if root is None else StoreCache(root, max_bytes=max_bytes_from_env())

"""Caches that trust nothing they did not make: private roots, owner checks, marked entries.

Every cache (stores, name indexes, surveys, embeddings) keeps its files under a root that
:func:`private_root` has checked: a real directory (not a symlink), owned by the current
user, that no one else can write; created with mode 0700 and tightened to it when it is
ours but looser. Files that may hold an endpoint's URL are written 0600. An entry a cache
built carries a marker (:data:`MARKER`) naming its owner and content key; eviction deletes
only marked entries of this user (:func:`is_own_entry`), never whatever else sits there.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from pathlib import Path

from saga_kgqa.errors import ConfigurationError

#: File inside a cache entry that says who wrote it and from what content.
MARKER = ".saga-cache-entry"


class UnsafeCacheDir(ConfigurationError):
    """A cache root is a symlink, belongs to another user, or others can write it; nothing in it is used.

    Attributes:
        path: The refused directory.
    """

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(message)
        self.path = path


def private_root(path: Path) -> Path:
    """Create ``path`` (mode 0700) or check it; return it when this user alone controls it.

    Raises:
        UnsafeCacheDir: It is a symlink or not a directory, another user owns it, or group or
            others may write it (a planted entry could be served).
    """
    with contextlib.suppress(FileExistsError):
        path.mkdir(parents=True, mode=0o700)
    try:
        info = path.lstat()
    except OSError as exc:
        raise UnsafeCacheDir(f"cache directory {path} cannot be read: {exc.strerror}", path=path) from None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise UnsafeCacheDir(f"cache directory {path} is a symlink or not a directory; not used", path=path)
    if info.st_uid != os.getuid():
        raise UnsafeCacheDir(f"cache directory {path} belongs to another user; not used", path=path)
    if info.st_mode & 0o022:
        raise UnsafeCacheDir(
            f"cache directory {path} is writable by other users (mode {stat.S_IMODE(info.st_mode):o}); not used "
            f"(if only you use it: chmod 700 {path})",
            path=path,
        )
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(path, 0o700)  # ours but readable by others: the files may name a secret endpoint
    return path


def read_private(path: Path) -> str | None:
    """The text of a regular file this user owns, without following a symlink; ``None`` otherwise."""
    try:
        # O_NONBLOCK: a FIFO put in its place cannot hang the reader; O_NOFOLLOW: no symlink out.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
            return None
        try:
            return handle.read().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically with mode 0600 (a reader never sees half a file)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # mkstemp creates 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def mark_entry(entry: Path, key: str) -> None:
    """Mark a directory this cache built: its owner and content key."""
    write_private(entry / MARKER, json.dumps({"uid": os.getuid(), "key": key}))


def entry_key(entry: Path) -> str | None:
    """The content key of an entry this user built and marked; ``None`` for anything else."""
    try:
        info = entry.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        return None
    text = read_private(entry / MARKER)
    if text is None:
        return None
    try:
        found = json.loads(text)
    except ValueError:
        return None
    if not isinstance(found, dict) or found.get("uid") != os.getuid() or not isinstance(found.get("key"), str):
        return None
    key: str = found["key"]
    return key


def is_own_entry(entry: Path) -> bool:
    """Whether ``entry`` is a real directory this user's cache built (so eviction may delete it)."""
    return entry_key(entry) is not None

"""Worked-example files read as files: regular files only, size first, strict UTF-8, JSON nesting capped.

An examples file (a catalog's ``examples``, ``saga index examples --file``, a confirmed run) is
outside text that the operator points at by path. Whatever sits there, reading it answers at
once with a one-line :class:`ExampleFileError`, never a traceback, a hang or memory without bound:

* a FIFO is opened without waiting for a writer (``O_NONBLOCK``) and refused, as are devices
  (``/dev/zero``), sockets and directories: only a regular file is read;
* its size is checked on the open descriptor before any byte is read, and at most that many
  bytes are read (a file that grows meanwhile is refused too);
* bytes that are not UTF-8 name the line and the byte where they start;
* a JSON text nested deeper than a cap is refused before the parser recurses into it.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from saga_kgqa.errors import ConfigurationError

#: Bytes an examples file may hold (a 300 MB file was read whole).
MAX_EXAMPLE_FILE_BYTES = 64 * 1024 * 1024
#: How deep one JSON text may nest (an example is an object of strings; a run's output nests a few levels).
MAX_JSON_DEPTH = 64

#: JSON strings, removed before brackets are counted (a bracket inside a string is text).
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_CHUNK = 1024 * 1024


class ExampleFileError(ConfigurationError):
    """An examples (or run) file that is not a readable, bounded, UTF-8 regular file, or nests too deeply."""


def read_text_file(path: Path, *, what: str = "examples file", max_bytes: int = MAX_EXAMPLE_FILE_BYTES) -> str:
    """The text of the regular file ``path``, strict UTF-8 (a leading byte-order mark dropped).

    Raises:
        ExampleFileError: Not a regular file (FIFO, device, socket, directory), larger than
            ``max_bytes``, unreadable, or not UTF-8 (the message names the line and byte).
    """
    return decode_text(read_bytes(path, what=what, max_bytes=max_bytes), path, what=what)


def read_bytes(path: Path, *, what: str = "examples file", max_bytes: int = MAX_EXAMPLE_FILE_BYTES) -> bytes:
    """The bytes of the regular file ``path``, refused before reading when it is not one or is too large.

    Raises:
        ExampleFileError: As :func:`read_text_file`, decoding aside.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise ExampleFileError(f"cannot read {what} {path}: {exc.strerror or type(exc).__name__}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ExampleFileError(f"{what} {path} is not a regular file ({_kind(info.st_mode)}); give a file's path")
        if info.st_size > max_bytes:
            raise ExampleFileError(
                f"{what} {path} is larger than {max_bytes:,} bytes ({info.st_size:,} bytes); not read"
            )
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes:
            chunk = os.read(fd, min(_CHUNK, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:
            raise ExampleFileError(f"{what} {path} is larger than {max_bytes:,} bytes (it grew while read); not read")
        return b"".join(chunks)
    except OSError as exc:
        raise ExampleFileError(f"cannot read {what} {path}: {exc.strerror or type(exc).__name__}") from None
    finally:
        os.close(fd)


def decode_text(data: bytes, path: Path, *, what: str = "examples file") -> str:
    """``data`` as strict UTF-8 (a leading byte-order mark dropped).

    Raises:
        ExampleFileError: Bytes that are not UTF-8; the message names the line and byte (both 1-based).
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        start = exc.start
        line = data.count(b"\n", 0, start) + 1
        byte = start - (data.rfind(b"\n", 0, start) + 1) + 1
        raise ExampleFileError(
            f"{what} {path} is not UTF-8 text: line {line}, byte {byte} "
            f"(0x{data[start]:02x}, offset {start} in the file)"
        ) from None


def json_depth(text: str) -> int:
    """How deeply the JSON text ``text`` nests arrays and objects (brackets inside strings not counted)."""
    depth = deepest = 0
    for ch in _JSON_STRING.sub("", text):
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def loads_capped(text: str, where: str, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads(text)``, refused first when it nests deeper than ``max_depth``.

    Raises:
        ExampleFileError: Nested too deeply (``where`` names the file and line).
        ValueError: Not JSON (``json.JSONDecodeError``), as ``json.loads`` raises it.
    """
    if ("[" in text or "{" in text) and json_depth(text) > max_depth:
        raise ExampleFileError(f"{where}: JSON nested deeper than {max_depth} levels; not an example")
    try:
        return json.loads(text)
    except RecursionError:  # a cap above the interpreter's own limit
        raise ExampleFileError(f"{where}: JSON nested too deeply; not an example") from None


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a file"

"""Prefixes that RDF files declare (``@prefix`` / ``PREFIX`` lines), read without parsing the files.

pyoxigraph does not keep a file's prefixes once it is loaded, yet they are what people
(and models) expect to read: ``pv:memberOf`` rather than a full IRI. Turtle and TriG
declare them at the top, so reading the head of each file is enough.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

#: Bytes read from the start of each file.
HEAD_BYTES = 256 * 1024

_DECLARATION = re.compile(
    r"^\s*(?:@prefix\s+([A-Za-z][\w\-.]*)?:\s*<([^<>\"{}|^`\\\s]*)>\s*\.|PREFIX\s+([A-Za-z][\w\-.]*)?:\s*<([^<>\"{}|^`\\\s]*)>)",
    re.IGNORECASE | re.MULTILINE,
)
_TEXT_SUFFIXES = frozenset({".ttl", ".turtle", ".trig", ".n3"})


def read_declared_prefixes(paths: Iterable[Path], *, head_bytes: int = HEAD_BYTES) -> dict[str, str]:
    """Return the named prefixes declared at the top of Turtle/TriG/N3 files.

    Other formats and unreadable files contribute nothing (the data itself is loaded,
    and its errors reported, elsewhere). The empty prefix (``:``) is skipped: an id
    like ``:x`` reads badly. When files disagree, the first declaration wins.

    Args:
        paths: RDF files; directories (stores) are skipped.
        head_bytes: How much of each file to read.

    Returns:
        Prefix name to namespace IRI.
    """
    found: dict[str, str] = {}
    for path in paths:
        if path.suffix.lower() not in _TEXT_SUFFIXES or not path.is_file():
            continue
        try:
            with path.open("rb") as handle:
                head = handle.read(head_bytes).decode("utf-8", errors="ignore")
        except OSError:
            continue
        for match in _DECLARATION.finditer(head):
            name = match.group(1) or match.group(3)
            namespace = match.group(2) if match.group(2) is not None else match.group(4)
            if name and namespace and ":" in namespace:
                found.setdefault(name, namespace)
    return found

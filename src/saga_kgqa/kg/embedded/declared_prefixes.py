"""Prefixes that RDF files declare (``@prefix`` / ``PREFIX`` lines), read without parsing the files.

pyoxigraph does not keep a file's prefixes once it is loaded, yet they are what people
(and models) expect to read: ``pv:memberOf`` rather than a full IRI. Turtle and TriG
declare them at the top, so reading the head of each file is enough.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

from saga_kgqa.kg.core.profiles import EndpointProfile

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


#: Side file in a store directory that remembers the prefixes of the files loaded into it.
STORE_PREFIXES_FILE = "saga-prefixes.json"


def save_store_prefixes(store_dir: Path, prefixes: Mapping[str, str]) -> None:
    """Merge ``prefixes`` into the store directory's side file (earlier entries win).

    A persisted store no longer knows its files' prefixes, so ``saga load`` keeps them
    here for later runs that open the directory instead of the files.
    """
    merged = {**prefixes, **load_store_prefixes(store_dir)}
    target = store_dir / STORE_PREFIXES_FILE
    tmp = target.with_suffix(".tmp")
    tmp.write_text(json.dumps(merged, indent=2, sort_keys=True), encoding="utf-8")
    os.replace(tmp, target)


def load_store_prefixes(store_dir: Path) -> dict[str, str]:
    """Return the prefixes remembered for a store directory (empty when none or unreadable)."""
    try:
        data = json.loads((store_dir / STORE_PREFIXES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): str(v) for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def with_prefixes(profile: EndpointProfile, prefixes: Mapping[str, str]) -> EndpointProfile:
    """Return ``profile`` with extra prefixes; the profile's own declarations win on conflicts."""
    extra = {name: iri for name, iri in prefixes.items() if name not in profile.prefixes}
    if not extra:
        return profile
    return replace(profile, prefixes=MappingProxyType({**profile.prefixes, **extra}))

"""The IRIs a query names (prefixed names expanded), without the vocabulary every query may use."""

from __future__ import annotations

import re
from collections.abc import Mapping

_PREFIX_DECL = re.compile(r"PREFIX\s+([A-Za-z][\w.-]*)?:\s*<([^>]*)>", re.I)
_FULL = re.compile(r"<([^<>\s]+)>")
_PREFIXED = re.compile(r"(?<![\w?$<])([A-Za-z][\w-]*)?:((?:[\w-]|\\.)+)")
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
#: Namespaces of the language and the stores' own vocabulary: named without being looked up.
VOCABULARY_NAMESPACES: tuple[str, ...] = (
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "http://www.w3.org/2000/01/rdf-schema#",
    "http://www.w3.org/2002/07/owl#",
    "http://www.w3.org/2001/XMLSchema#",
    "http://www.w3.org/2004/02/skos/core#",
    "http://wikiba.se/ontology#",
    "http://www.bigdata.com/rdf#",
    "http://schema.org/",
)


def query_iris(sparql: str, prefixes: Mapping[str, str]) -> set[str]:
    """The IRIs named in ``sparql``: ``<…>`` and prefixed names (its own PREFIX lines, then ``prefixes``)."""
    declared = dict(prefixes)
    declared.update({(m.group(1) or ""): m.group(2) for m in _PREFIX_DECL.finditer(sparql)})
    body = _STRINGS.sub(" ", _PREFIX_DECL.sub(" ", sparql))
    found = {m.group(1) for m in _FULL.finditer(body)}
    for match in _PREFIXED.finditer(_FULL.sub(" ", body)):
        namespace = declared.get(match.group(1) or "")
        if namespace is not None:
            found.add(namespace + match.group(2).replace("\\", ""))
    return {i for i in found if not i.startswith(VOCABULARY_NAMESPACES)}


def local_id(iri: str) -> str:
    """The part after the last ``/`` or ``#`` (``Q42053`` for ``wd:Q42053``)."""
    return re.split(r"[/#]", iri.rstrip("/#"))[-1]


def seen_in(iri: str, texts: str, prefixes: Mapping[str, str]) -> bool:
    """True when an observation text names the IRI: in full, compacted, or by an id-like local name (``Q42``)."""
    if iri in texts:
        return True
    for prefix, namespace in prefixes.items():
        if iri.startswith(namespace) and f"{prefix}:{iri[len(namespace) :]}" in texts:
            return True
    local = local_id(iri)
    # An id such as Q42053 or P1082 is specific; a plain word such as "name" is not evidence.
    if re.fullmatch(r"[A-Za-z]{0,3}\d+", local):
        return re.search(rf"(?<![\w]){re.escape(local)}(?![\w])", texts) is not None
    return False

"""Hints across sources: a property or class unknown to the queried source but known to another one.

A model working over several sources will send a query to the wrong one. The source's own
hints then point at its *nearest* property, which is the wrong advice: the property exists,
elsewhere. :func:`elsewhere` names the catalog source whose schema (declared or surveyed)
holds each IRI of the query that the queried source does not know.
"""

from __future__ import annotations

import re

from saga_kgqa.errors import BackendError, ConfigurationError
from saga_kgqa.kg.guard.sparql_lexer import tokenize
from saga_kgqa.schema.model import SchemaIndex
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.tools.render import iri_text

#: Other catalog sources consulted at most (each opens and surveys once, cached).
MAX_SOURCES = 8
#: IRIs of one query checked at most.
MAX_IRIS = 40
_PREFIX = re.compile(r"PREFIX\s+([A-Za-z][\w.\-]*)?:\s*<([^<>\s]*)>", re.IGNORECASE)


def query_iris(sparql: str, prefixes: dict[str, str]) -> list[str]:
    """The IRIs a query names, written in full or as prefixed names (declared or the profile's)."""
    known = dict(prefixes)
    known.update({name or "": namespace for name, namespace in _PREFIX.findall(sparql)})
    found: dict[str, None] = {}
    for token in tokenize(sparql):
        if token.kind == "iri":
            found[token.text[1:-1]] = None
        elif token.kind == "pname":
            prefix, _, local = token.text.partition(":")
            if prefix in known:
                found[known[prefix] + local.replace("\\", "")] = None
    return list(found)[:MAX_IRIS]


def _knows(schema: SchemaIndex, term: str) -> bool:
    return term in schema.properties or term in schema.classes


def elsewhere(sources: SourceSet, source: str, sparql: str) -> list[str]:
    """Lines naming, for each schema IRI of ``sparql`` unknown to ``source``, the other source that has it."""
    here = sources.get(source)
    schema = here.schema()
    prefixes = dict(here.graph.profile.prefixes)
    unknown = [term for term in query_iris(sparql, prefixes) if not _knows(schema, term)]
    unknown = [term for term in unknown if term not in schema.type_predicates]
    if not unknown:
        return []
    lines: list[str] = []
    for name in [n for n in sources.names if n != here.name][:MAX_SOURCES]:
        try:
            other = sources.get(name).schema()
        except (ConfigurationError, BackendError):
            continue  # a source that cannot be opened says nothing about where a property lives
        for term in [t for t in unknown if _knows(other, t)]:
            unknown.remove(term)
            lines.append(
                f"Hint: {iri_text(term, prefixes)} is not in source {here.name}; it lives in source {name}: "
                f"run that part with execute_on({name}: …), or join the two sources with join."
            )
    return lines

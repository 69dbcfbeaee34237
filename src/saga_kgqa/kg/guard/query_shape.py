"""Structural facts about a query that decide how its failures are retried.

TogoMCP's rule for a server-side timeout: retry at most once, unchanged, and only a
query anchored on a known entity, because such a query is cheap and its timeout is
more likely a cold cache than a heavy query. Everything else must be narrowed first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rdflib.plugins.sparql.algebra import translateQuery, traverse
from rdflib.term import URIRef

from saga_kgqa.kg.guard.sparql_grammar import parse_public_query, quiet_terms


def is_anchored(text: str, prefixes: Mapping[str, str]) -> bool:
    """Whether some triple pattern has a constant IRI as its subject or object.

    A constant predicate alone does not anchor a query (``?s wdt:P31 ?o`` still scans
    the whole predicate). SERVICE blocks are not looked into, so the parameters of
    WDQS's label service do not count.

    Args:
        text: The query text.
        prefixes: Prefixes the endpoint predeclares (the text may rely on them).

    Returns:
        ``True`` when anchored; ``False`` also when the text cannot be parsed here.
    """
    declared = "".join(f"PREFIX {name}: <{iri}>\n" for name, iri in prefixes.items())
    try:
        with quiet_terms():
            algebra = translateQuery(parse_public_query(declared + text)).algebra
    except Exception:  # rdflib raises many types; unparsable just means "not anchored"
        return False
    anchored = False

    def visit(node: Any) -> None:
        nonlocal anchored
        if getattr(node, "name", None) == "BGP":
            for subject, _predicate, obj in node.triples:
                if isinstance(subject, URIRef) or isinstance(obj, URIRef):
                    anchored = True

    traverse(algebra, visitPre=visit)
    return anchored

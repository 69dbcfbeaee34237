"""Entity resolution on Virtuoso through its own full-text index (``bif:contains``), not a copy of the names.

A Virtuoso source with a text index over its literals (``DB.DBA.RDF_OBJ_FT_RULE_ADD``)
answers a name with one query, so resolution needs no name index built from a read of
every label. ``bif:`` is Virtuoso's procedure scheme: the read-only guard refuses it in
every query a model or caller writes, and only the project-built templates here
(:func:`~saga_kgqa.kg.core.query.from_template`, every term escaped) send it. The text
expression is built from the query's alphanumeric words only, so a caller's text cannot
change its operators. A server without a text index answers ``bif:contains`` with
nothing rather than an error, so a one-label probe decides, once per source, whether the
index is there; without it (or when the native query fails) resolution falls back to the
tantivy index (:mod:`saga_kgqa.sources.resolution`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from saga_kgqa.errors import BackendError
from saga_kgqa.kg.guard.sparql_terms import iri, string_literal
from saga_kgqa.sources.session import OpenSource
from saga_kgqa.tools.search.identifier_forms import identifier_forms
from saga_kgqa.tools.search.label_index import MatchKind, NameMatch, normalise

#: The profile whose engine has ``bif:contains``.
VIRTUOSO_PROFILE = "virtuoso"
#: Virtuoso refuses a wildcard after fewer leading characters (FT370).
_WILDCARD_MIN = 4
_WORD = re.compile(r"[0-9a-z]+")
_SCORES: dict[MatchKind, float] = {"exact": 1.0, "prefix": 0.9, "words": 0.8, "substring": 0.7, "fuzzy": 0.6}
_ROWS_PER_HIT = 5
_PROBE_ROWS = 20
_PROBE_ASKS = 3


def has_native_text(source: OpenSource, predicates: Sequence[str]) -> bool:
    """Whether the source is a Virtuoso whose text index covers its names (probed once, then remembered)."""
    if source.graph.profile.name != VIRTUOSO_PROFILE or not predicates:
        return False
    if source.native_text is None:
        source.native_text = _probe(source, predicates)
    return source.native_text


def _probe(source: OpenSource, predicates: Sequence[str]) -> bool:
    """Look a few known names up through ``bif:contains``: any found means the index is there.

    Probe words are alphabetic and long: the engine does not index every number or short word.
    """
    reads = source.reads()
    values = " ".join(iri(p) for p in predicates)
    try:
        rows = reads.select(
            f"SELECT ?s ?o WHERE {{ VALUES ?p {{ {values} }} ?s ?p ?o FILTER(isIRI(?s) && isLiteral(?o)) }}",
            limit=_PROBE_ROWS,
        ).rows
        asked = 0
        for row in rows:
            words = [w for w in _WORD.findall(normalise(row["o"].value)) if len(w) >= _WILDCARD_MIN and w.isalpha()]
            if not words:
                continue
            body = f"{iri(row['s'].value)} ?p ?o . ?o bif:contains {string_literal(_quoted(words[:1]))}"
            if reads.ask(f"VALUES ?p {{ {values} }} {body}"):
                return True
            asked += 1
            if asked >= _PROBE_ASKS:
                break
    except BackendError:
        return False
    return False


def text_expression(text: str) -> str | None:
    """The ``bif:contains`` expression for a name: its words ANDed (the last one also as a prefix), or an accession.

    Only ``[0-9a-z]`` words reach the expression, each double-quoted, so the caller's text
    is never an operator. ``None`` when no word is left.
    """
    words = _WORD.findall(normalise(text))
    alternatives = []
    if words:
        last = words[-1]
        tail = f'("{last}" OR "{last}*")' if len(last) >= _WILDCARD_MIN else _quoted([last])
        alternatives.append(" AND ".join([*(_quoted([w]) for w in words[:-1]), tail]))
    # The accession after a namespace (UniProt:P12345 -> p12345) is how the literal is written.
    alternatives.extend(_quoted([form]) for form in identifier_forms(text)[1:] if _WORD.fullmatch(form))
    unique = list(dict.fromkeys(alternatives))
    if not unique:
        return None
    return " OR ".join(f"({a})" for a in unique) if len(unique) > 1 else unique[0]


def _quoted(words: Sequence[str]) -> str:
    return " AND ".join(f'"{w}"' for w in words)


def native_search(
    source: OpenSource, text: str, predicates: Sequence[str], *, limit: int, reject: frozenset[str]
) -> list[NameMatch]:
    """The best-matching IRIs whose name literals contain the query's words, through Virtuoso's index.

    Raises:
        BackendError: The native query failed (the caller falls back to the tantivy index).
    """
    expression = text_expression(text)
    if expression is None or limit <= 0:
        return []
    values = " ".join(iri(p) for p in predicates)
    rows = (
        source.reads()
        .select(
            f"SELECT ?s ?p ?o WHERE {{ VALUES ?p {{ {values} }} ?s ?p ?o . "
            f"?o bif:contains {string_literal(expression)} FILTER(isIRI(?s)) }}",
            limit=(limit + len(reject)) * _ROWS_PER_HIT,
            what="full-text matches",
        )
        .rows
    )
    best: dict[str, NameMatch] = {}
    for row in rows:
        resource, name = row["s"].value, row["o"].value
        if resource in reject:
            continue
        kind = match_kind(text, name)
        match = NameMatch(resource, name, row["p"].value, kind, _SCORES[kind])
        if resource not in best or match.score > best[resource].score:
            best[resource] = match
    ranked = sorted(best.values(), key=lambda m: (-m.score, len(m.text), m.resource))
    return ranked[:limit]


def match_kind(query: str, name: str) -> MatchKind:
    """How a name the engine found matches the query (the same kinds the tantivy index reports)."""
    wanted, found = normalise(query), normalise(name)
    forms = set(identifier_forms(query))
    if wanted == found or (forms and forms & set(identifier_forms(name))):
        return "exact"
    if found.startswith(wanted):
        return "prefix"
    if all(word in _WORD.findall(found) for word in _WORD.findall(wanted)):
        return "words"
    return "substring"

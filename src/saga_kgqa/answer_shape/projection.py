"""Split a final SELECT into the scored query (answer columns) and the display query (with labels).

TEXT2SPARQL and QALD score every value of every returned column, so a label, name or
description column beside the entity it describes only adds wrong values: one 2025 team
returned label, e-mail and phone columns and had recall 0.779 but precision 0.418 on the
corporate graph. The rule here is narrow on purpose: a projected variable is dropped only
when it is bound *solely* as the object of a display property (``rdfs:label``,
``skos:prefLabel``, ``schema:name`` ... or Wikidata's label service's ``?xLabel``) of
another variable that stays projected. Then the entity answers the question and the label
only shows it. A label whose entity is not projected *is* the answer and stays; so do
aggregates, ORDER BY and LIMIT (ranking questions keep their order), and ASK queries.

Two exceptions keep a label column: the question asks for names (``name``, ``called``,
``Name``, ``heißt``, ``nombre`` ...: then the label *is* asked for), and the label's
entity is a GROUP BY key (a "per category" answer lists its groups by the text they are
known by). Both were found on GRASP's CK25 runs, where dropping those labels lost recall.
Domain properties that happen to hold names (a graph's own ``:name``) are left alone: the
question may ask for them.

The original text is kept as the display query, so the readable-answer view still shows
labels.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rdflib import URIRef, Variable

from saga_kgqa.kg.guard.limit_rewrite import first_keyword
from saga_kgqa.kg.guard.sparql_algebra import iter_nodes
from saga_kgqa.kg.guard.sparql_grammar import parse_public_query, translate
from saga_kgqa.kg.guard.sparql_lexer import Token, tokenize

_RDFS = "http://www.w3.org/2000/01/rdf-schema#"
_SKOS = "http://www.w3.org/2004/02/skos/core#"
_SCHEMA = ("http://schema.org/", "https://schema.org/")
_DC = ("http://purl.org/dc/terms/", "http://purl.org/dc/elements/1.1/")

#: Properties whose object only names or describes its subject for display.
LABEL_PROPERTIES: frozenset[str] = frozenset(
    {
        f"{_RDFS}label",
        f"{_RDFS}comment",
        f"{_SKOS}prefLabel",
        f"{_SKOS}altLabel",
        f"{_SKOS}definition",
        "http://xmlns.com/foaf/0.1/name",
        *(f"{base}{local}" for base in _SCHEMA for local in ("name", "description", "alternateName")),
        *(f"{base}{local}" for base in _DC for local in ("title", "description")),
    }
)
_WIKIBASE_LABEL_SUFFIXES = ("Label", "Description", "AltLabel")
#: Words by which a question asks for names (English, German, Spanish).
ASKS_FOR_NAMES = re.compile(
    r"\b(names?|named|called|labels?|titles?|namen|heißt|heißen|hei(?:ss)en|bezeichnung(?:en)?|titel|"
    r"nombres?|llamad[oa]s?|llama|llaman|t[ií]tulos?|etiquetas?|denominaci[oó]n)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ShapedQuery:
    """A final query split for scoring and for display.

    Attributes:
        scored: The query whose result is the answer (only answer columns projected).
        display: The query the readable-answer view runs (the original, labels included).
        dropped: The display-only variables removed from ``scored``, in projection order.
    """

    scored: str
    display: str
    dropped: tuple[str, ...]


def shape_query(text: str, question: str | None = None, *, label_properties: Iterable[str] = ()) -> ShapedQuery:
    """Drop display-only label columns from a SELECT's projection.

    Anything the rule cannot read (not a SELECT, ``SELECT *``, a parse error) comes back
    unchanged: shaping only ever removes columns it can prove are labels of kept columns.

    Args:
        text: The final query text.
        question: The question, when known: one that asks for names keeps every label.
        label_properties: The source's own naming and describing properties (its vocabulary's
            label and description predicates: Freebase's ``type.object.name``, a private graph's
            ``ex:displayName``), beside the common ones of :data:`LABEL_PROPERTIES`.

    Returns:
        The scored and display queries, and what was dropped.
    """
    unchanged = ShapedQuery(scored=text, display=text, dropped=())
    if question is not None and ASKS_FOR_NAMES.search(question):
        return unchanged
    tokens = tokenize(text)
    keyword = first_keyword(tokens)
    if keyword is None or not keyword.is_word("SELECT"):
        return unchanged
    projection = _projection(tokens, tokens.index(keyword))
    if not projection:
        return unchanged
    plain = [token.text[1:] for token in projection]
    try:
        algebra = translate(parse_public_query(text), {}).algebra  # the guard's turns between threads
    except Exception:
        return unchanged
    triples, group_keys = _walk(algebra)
    uses_label_service = "wikiba.se/ontology#label" in text or "wikibase:label" in text
    labels = LABEL_PROPERTIES.union(label_properties)
    droppable = _display_only(plain, triples, uses_label_service, group_keys, labels)
    if not droppable:
        return unchanged
    keep_spans = [(t.start, t.end) for t in projection if t.text[1:] in droppable]
    scored = _cut(text, keep_spans)
    return ShapedQuery(scored=scored, display=text, dropped=tuple(v for v in plain if v in droppable))


def _projection(tokens: list[Token], select_index: int) -> list[Token]:
    """The plain ``?var`` tokens of the top-level projection (expressions are not touched)."""
    out: list[Token] = []
    for token in tokens[select_index + 1 :]:
        if token.brace_depth == 0 and token.paren_depth == 0:
            if (token.kind == "punct" and token.text == "{") or token.is_word("WHERE") or token.is_word("FROM"):
                break
            if token.kind == "punct" and token.text == "*":
                return []
            if token.kind == "var":
                out.append(token)
    return out


def _walk(node: Any) -> tuple[list[tuple[Any, Any, Any]], set[str]]:
    """Every triple pattern anywhere in the algebra, and every GROUP BY key variable."""
    triples: list[tuple[Any, Any, Any]] = []
    keys: set[str] = set()
    for current in iter_nodes(node):
        name = current.name
        if name == "BGP":
            triples.extend(current.get("triples") or [])
        elif name == "Group":
            keys.update(str(e) for e in current.get("expr") or [] if isinstance(e, Variable))
    return triples, keys


def _display_only(
    projected: list[str],
    triples: list[tuple[Any, Any, Any]],
    label_service: bool,
    group_keys: set[str],
    labels: frozenset[str],
) -> set[str]:
    kept_candidates = set(projected)
    label_of: dict[str, set[str]] = {}
    other_use: set[str] = set()
    for subject, predicate, obj in triples:
        is_label = isinstance(predicate, URIRef) and str(predicate) in labels
        if isinstance(obj, Variable) and is_label and isinstance(subject, Variable):
            label_of.setdefault(str(obj), set()).add(str(subject))
        else:
            other_use.update(str(term) for term in (subject, predicate, obj) if isinstance(term, Variable))
    droppable: set[str] = set()
    for variable in projected:
        subjects = label_of.get(variable)
        others = kept_candidates - {variable}
        if subjects and variable not in other_use and not subjects & group_keys and subjects & others:
            droppable.add(variable)
    if label_service:
        for variable in projected:
            for suffix in _WIKIBASE_LABEL_SUFFIXES:
                base = variable.removesuffix(suffix)
                if base != variable and base in kept_candidates - group_keys and variable not in other_use:
                    droppable.add(variable)
    # A label is dropped only if the entity it labels is kept.
    return {v for v in droppable if (label_of.get(v, set()) | _label_service_base(v)) & (kept_candidates - droppable)}


def _label_service_base(variable: str) -> set[str]:
    return {variable.removesuffix(s) for s in _WIKIBASE_LABEL_SUFFIXES if variable.endswith(s)}


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    out, position = [], 0
    for start, end in sorted(spans):
        out.append(text[position:start])
        position = end
    out.append(text[position:])
    return "".join(out)

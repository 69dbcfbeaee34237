"""Why a pattern that names a key matches nothing: the graph holds the key in another format.

A dead pattern ``?x ex:name "karen brant"`` is often right but for its key's *format*: the graph
writes ``"Karen Brant"`` (case), ``"Karen  Brant "`` (whitespace), ``"Karen Brant"@en`` (a language
tag), ``"EMP-17"`` for ``"17"`` (a prefix), an IRI where the query gives a string (or the other way
round), or ``<…/a%40b>`` for ``<…/a@b>`` (a character the graph stores escaped). The empty-result
diagnosis names the dead pattern; these notes add which format the graph uses, each from one small
bounded probe through the guard. A FILTER comparing an IRI with a string is named from the query
alone: SPARQL never equates the two.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.term import Literal, URIRef, Variable

from saga_kgqa.errors import BackendError, QueryRejected
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.guard.algebra_text import Triple
from saga_kgqa.kg.guard.sparql_terms import iri, string_literal
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.text_safety import graph_text
from saga_kgqa.tools.render import iri_text, term_text

_SAMPLE = 5
#: Characters an IRI may carry either raw or percent-escaped (``@`` as ``%40``...).
_SAFE = ":/?#[]!$&'()*+,;=-._~"


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def _rows(graph: KnowledgeGraph, body: str, deadline_s: float) -> list[dict[str, Term]] | None:
    """Rows of one bounded probe, or ``None`` when it could not run (the diagnosis stands without the note)."""
    if deadline_s <= 0:
        return None
    try:
        checked = graph.check(body)
        return list(graph.run(checked, ExecutionLimits(deadline_s=deadline_s, max_rows=_SAMPLE)).rows)
    except (QueryRejected, BackendError):
        return None


def literal_key_note(
    triple: Triple, graph: KnowledgeGraph, prefixes: Mapping[str, str], deadline_s: float
) -> str | None:
    """How the graph writes the dead pattern's literal key, when it differs only in format."""
    subject, prop, obj = triple
    if not isinstance(prop, URIRef) or not isinstance(obj, Literal):
        return None
    head = iri(str(subject)) if isinstance(subject, URIRef) else "?s"
    wanted = _normal(str(obj))
    if not wanted:
        return None
    needle = string_literal(wanted)
    body = (
        f"SELECT ?o WHERE {{ {head} {iri(str(prop))} ?o "
        f"FILTER(CONTAINS(LCASE(STR(?o)), LCASE({needle}))) }} LIMIT {_SAMPLE}"
    )
    rows = _rows(graph, body, deadline_s)
    found = [row["o"] for row in rows or [] if "o" in row]
    if not found:
        return None
    term = found[0]
    shown = term_text(term, prefixes)
    given = graph_text(obj.n3(), 120)
    if term.kind == "uri":
        return f"Key format: the graph holds the IRI {shown} there, not the string {given}; use the IRI."
    lexical = term.value
    if lexical == str(obj):
        if (term.lang or None) != (obj.language or None):
            tag = f"@{term.lang}" if term.lang else "no language tag"
            return f"Key format: the graph writes {shown} ({tag}), the query {given}; match its language tag."
        return None  # the datatype note says the rest
    if _normal(lexical) == wanted:
        kind = "case" if " ".join(lexical.split()) == lexical and lexical.casefold() == str(obj).casefold() else None
        what = "in case" if kind else "in whitespace or case"
        return f"Key format: the graph writes {shown}, differing from {given} only {what}."
    return f"Key format: the graph writes {shown}, which holds {given} with a prefix or suffix."


def iri_key_note(triple: Triple, graph: KnowledgeGraph, prefixes: Mapping[str, str], deadline_s: float) -> str | None:
    """Whether a dead pattern's IRI exists escaped (or unescaped) in the graph, or its property holds literals."""
    for term in (triple[0], triple[2]):
        if not isinstance(term, URIRef):
            continue
        text = str(term)
        for variant in {urllib.parse.quote(text, safe=_SAFE), urllib.parse.unquote(text)} - {text}:
            try:
                written = iri(variant)
            except QueryRejected:
                continue
            rows = _rows(
                graph, f"SELECT ?p WHERE {{ {{ {written} ?p ?o }} UNION {{ ?s ?p {written} }} }} LIMIT 1", deadline_s
            )
            if rows:
                return (
                    f"Key format: the graph writes {iri_text(variant, prefixes)} for {iri_text(text, prefixes)} "
                    "(one character escaped differently); use the graph's form."
                )
    prop, obj = triple[1], triple[2]
    if isinstance(prop, URIRef) and isinstance(obj, URIRef):
        rows = _rows(graph, f"SELECT ?o WHERE {{ ?s {iri(str(prop))} ?o FILTER(isLiteral(?o)) }} LIMIT 1", deadline_s)
        if rows and "o" in rows[0]:
            shown = term_text(rows[0]["o"], prefixes)
            return (
                f"Key format: the graph holds literals there (e.g. {shown}), not IRIs such as "
                f"{iri_text(str(obj), prefixes)}; match the literal."
            )
    return None


def key_format_note(
    triple: Triple, graph: KnowledgeGraph, prefixes: Mapping[str, str], deadline_s: float
) -> str | None:
    """The one format note a dead pattern gets (literal keys first, then IRIs), or ``None``."""
    return literal_key_note(triple, graph, prefixes, deadline_s) or iri_key_note(triple, graph, prefixes, deadline_s)


def iri_string_note(condition: Any, iri_variables: set[str], show: Callable[[Any], str]) -> str | None:
    """``FILTER(?x = "http://…")`` where ``?x`` holds IRIs: SPARQL never equates an IRI and a string."""
    if not isinstance(condition, CompValue) or condition.name != "RelationalExpression":
        return None
    if str(condition.op) not in ("=", "!=", "IN", "NOT IN"):
        return None
    sides: Sequence[Any] = [
        condition.expr,
        *(condition.other if isinstance(condition.other, list) else [condition.other]),
    ]
    variables = [side for side in sides if isinstance(side, Variable)]
    strings = [side for side in sides if isinstance(side, Literal) and side.datatype is None and not side.language]
    if not variables or not strings:
        return None
    name = str(variables[0])
    if name not in iri_variables and not str(strings[0]).startswith(("http://", "https://", "urn:")):
        return None
    return (
        f"FILTER {show(condition)} compares ?{name}, an IRI, with a string: they are never equal in SPARQL. "
        f"Compare STR(?{name}) with the string, or write the IRI in angle brackets."
    )

"""Wikidata statements behind supporting triples: rank, qualifiers and references, in one bounded query.

A supporting triple is a statement's when its predicate is ``p:Pn`` (its object is the
statement node), ``ps:Pn``/``pq:Pn`` (its subject is), or the truthy shortcut ``wdt:Pn`` (the
statement is the one with the same subject, ``p:Pn`` and ``ps:Pn`` value). One query finds those
statements and reads each one's ``wikibase:rank``, its ``pq:`` qualifiers and its references'
``pr:`` values (through ``prov:wasDerivedFrom``). A graph that has no statements (only truthy
triples) simply returns none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from saga_kgqa.kg.core.result import Row, Term
from saga_kgqa.kg.guard.sparql_terms import iri, result_term, string_literal
from saga_kgqa.tools.evidence.support import Found

WD_ENTITY = "http://www.wikidata.org/entity/"
P = "http://www.wikidata.org/prop/"
PS = "http://www.wikidata.org/prop/statement/"
PQ = "http://www.wikidata.org/prop/qualifier/"
PR = "http://www.wikidata.org/prop/reference/"
WDT = "http://www.wikidata.org/prop/direct/"
RANK = "http://wikiba.se/ontology#rank"
DERIVED_FROM = "http://www.w3.org/ns/prov#wasDerivedFrom"
RANKS = {
    "http://wikiba.se/ontology#PreferredRank": "preferred",
    "http://wikiba.se/ontology#NormalRank": "normal",
    "http://wikiba.se/ontology#DeprecatedRank": "deprecated",
}
_PROPERTY = re.compile(r"^http://www\.wikidata\.org/prop/(?:(direct|statement|qualifier|reference)/)?(P\d+)$")


@dataclass(slots=True)
class Statement:
    """A statement as read: its triple and details (terms as the graph returned them)."""

    node: str
    subject: str = ""
    property_id: str = ""
    value: Term | None = None
    rank: str = "unknown"
    qualifiers: list[tuple[str, Term]] = field(default_factory=list)
    references: dict[str, list[tuple[str, Term]]] = field(default_factory=dict)


def property_id(value: str) -> tuple[str, str] | None:
    """``(kind, "P27")`` of a Wikidata property IRI (kind ``""`` for ``p:``, else direct/statement/…)."""
    found = _PROPERTY.match(value)
    return (found.group(1) or "", found.group(2)) if found else None


def entity_of(value: str) -> str:
    """The entity IRI of a Wikidata property IRI in any namespace (``wdt:P27`` → ``wd:P27``), else the value."""
    found = property_id(value)
    return WD_ENTITY + found[1] if found else value


def statement_keys(triple: Found) -> tuple[str | None, tuple[str, str, Term] | None]:
    """A triple's statement node (``p:``/``ps:``/``pq:``), or its truthy key ``(subject, Pn, value)`` (``wdt:``)."""
    found = property_id(triple.predicate.value) if triple.predicate.kind == "uri" else None
    if found is None:
        return None, None
    kind, pid = found
    if kind == "" and triple.object.kind == "uri":
        return triple.object.value, None
    if kind in ("statement", "qualifier") and triple.subject.kind == "uri":
        return triple.subject.value, None
    if kind == "direct" and triple.subject.kind == "uri":
        return None, (triple.subject.value, pid, triple.object)
    return None, None


def statements_query(nodes: Sequence[str], truthy: Sequence[tuple[str, str, Term]], limit: int) -> str | None:
    """One query for the statements of ``nodes`` and of the truthy triples, with rank, qualifiers, references."""
    branches = []
    if truthy:
        table = " ".join(f"({iri(s)} {iri(P + pid)} {iri(PS + pid)} {result_term(value)})" for s, pid, value in truthy)
        branches.append(f"{{ VALUES (?s ?pp ?pps ?v) {{ {table} }} ?s ?pp ?st . ?st ?pps ?v . }}")
    if nodes:
        branches.append(
            f"{{ VALUES ?st {{ {' '.join(iri(node) for node in nodes)} }} ?s ?pp ?st . ?st ?pps ?v . "
            f"FILTER(STRSTARTS(STR(?pp), {string_literal(P + 'P')}) && STRSTARTS(STR(?pps), {string_literal(PS)}) "
            f"&& STRAFTER(STR(?pp), {string_literal(P)}) = STRAFTER(STR(?pps), {string_literal(PS)})) }}"
        )
    if not branches:
        return None
    details = (
        f'OPTIONAL {{ {{ ?st {iri(RANK)} ?x . BIND("rank" AS ?kind) }} '
        f'UNION {{ ?st ?k ?x . FILTER(STRSTARTS(STR(?k), {string_literal(PQ + "P")})) BIND("qualifier" AS ?kind) }} '
        f"UNION {{ ?st {iri(DERIVED_FROM)} ?ref . ?ref ?k ?x . "
        f'FILTER(STRSTARTS(STR(?k), {string_literal(PR + "P")})) BIND("reference" AS ?kind) }} }}'
    )
    return f"SELECT ?st ?s ?pp ?v ?kind ?k ?x ?ref WHERE {{ {' UNION '.join(branches)} {details} }} LIMIT {limit}"


def read_statements(rows: Iterable[Row], *, per_statement: int) -> dict[str, Statement]:
    """Statements by node from the query's rows (each keeps at most ``per_statement`` qualifiers and references)."""
    found: dict[str, Statement] = {}
    for row in rows:
        node, subject, pp, value = row.get("st"), row.get("s"), row.get("pp"), row.get("v")
        if node is None or subject is None or pp is None or value is None:
            continue
        statement = found.get(node.value)
        if statement is None:
            pid = property_id(pp.value)
            statement = Statement(node.value, subject.value, pid[1] if pid else "", value)
            found[node.value] = statement
        kind, key, x = row.get("kind"), row.get("k"), row.get("x")
        if kind is None or x is None:
            continue
        if kind.value == "rank":
            statement.rank = RANKS.get(x.value, "unknown")
        elif kind.value == "qualifier" and key is not None:
            if (key.value, x) not in statement.qualifiers and len(statement.qualifiers) < per_statement:
                statement.qualifiers.append((key.value, x))
        elif kind.value == "reference" and key is not None and row.get("ref") is not None:
            ref = row["ref"].value
            if ref not in statement.references and len(statement.references) >= per_statement:
                continue
            values = statement.references.setdefault(ref, [])
            if (key.value, x) not in values and len(values) < per_statement:
                values.append((key.value, x))
    return found

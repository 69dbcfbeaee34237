"""The positive triple patterns of a query, block by block, from rdflib's SPARQL algebra.

A *block* is one basic graph pattern of the algebra (the patterns of one group, an OPTIONAL's
group, one UNION branch, a subquery's group). Only the patterns that must match for a row to be
produced count: the right side of MINUS, FILTER expressions (``EXISTS``/``NOT EXISTS``) and
SERVICE calls (``wikibase:label``) are skipped, so nothing that *excludes* a row is shown as
supporting it. Blank nodes written as ``[]`` are variables of their block (``?_b0``); property
paths stay paths.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from rdflib.paths import Path
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.term import BNode, Literal, URIRef, Variable

from saga_kgqa.kg.guard.sparql_algebra import parse_algebra
from saga_kgqa.kg.guard.sparql_terms import iri, string_literal, unescape_local_name

#: The algebra keys that hold sub-patterns (expressions, aggregates and SERVICE bodies are not followed).
_PATTERN_KEYS = ("p", "p1", "p2")
#: Nodes whose body supports nothing: MINUS's right side is handled apart, SERVICE is another graph.
_SKIPPED = frozenset({"ServiceGraphPattern"})


@dataclass(frozen=True, slots=True)
class PatternTerm:
    """One position of a triple pattern.

    Attributes:
        text: SPARQL text: ``?name`` for a variable, an escaped IRI or literal, or a property path.
        variable: The variable's name (without ``?``), or ``None`` for a constant or a path.
        path: True for a property path (the triple it matches is shown with the path as predicate).
    """

    text: str
    variable: str | None = None
    path: bool = False


@dataclass(frozen=True, slots=True)
class Block:
    """One basic graph pattern: its triple patterns and the variables they use, in order."""

    triples: tuple[tuple[PatternTerm, PatternTerm, PatternTerm], ...]

    @property
    def variables(self) -> tuple[str, ...]:
        """The block's variables, in order of first use."""
        seen: dict[str, None] = {}
        for triple in self.triples:
            for term in triple:
                if term.variable is not None:
                    seen.setdefault(term.variable, None)
        return tuple(seen)

    def text(self) -> str:
        """The block as SPARQL triples (``s p o .`` each)."""
        return " ".join(f"{s.text} {p.text} {o.text} ." for s, p, o in self.triples)


def query_blocks(sparql: str, prefixes: Mapping[str, str]) -> tuple[Block, ...]:
    """The query's positive blocks, in the order they appear.

    Raises:
        QueryRejected: The query does not parse (it ran, so this means another dialect's syntax).
    """
    root = parse_algebra(sparql, prefixes)
    blocks: list[Block] = []
    for bgp in _bgps(root):
        names: dict[str, str] = {}
        triples = tuple((_term(s, names), _term(p, names), _term(o, names)) for s, p, o in bgp.triples)
        if triples:
            blocks.append(Block(triples))
    return tuple(blocks)


def _bgps(root: Any) -> Iterator[CompValue]:
    """Every BGP under ``root`` that a row's solution needs (depth first, left to right)."""
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if not isinstance(node, CompValue) or node.name in _SKIPPED:
            continue
        if node.name == "BGP":
            yield node
            continue
        keys = ("p", "p1") if node.name == "Minus" else _PATTERN_KEYS
        stack.extend(node.get(key) for key in reversed(keys) if node.get(key) is not None)


def _term(term: Any, bnodes: dict[str, str]) -> PatternTerm:
    """One pattern position as SPARQL text, escaped by the project's own writers."""
    if isinstance(term, Variable):
        return PatternTerm(f"?{term}", variable=str(term))
    if isinstance(term, BNode):
        name = bnodes.setdefault(str(term), f"_b{len(bnodes)}")
        return PatternTerm(f"?{name}", variable=name)
    if isinstance(term, URIRef):
        return PatternTerm(iri(unescape_local_name(str(term))))
    if isinstance(term, Literal):
        if term.language:
            return PatternTerm(string_literal(str(term), term.language))
        if term.datatype is not None:
            return PatternTerm(f"{string_literal(str(term))}^^{iri(str(term.datatype))}")
        return PatternTerm(string_literal(str(term)))
    if isinstance(term, Path):
        return PatternTerm(term.n3(), path=True)
    return PatternTerm(str(term))

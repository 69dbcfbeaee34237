"""The one bounded query that reads every supporting triple of the answer rows, and the triples it yields.

For each block of the final query (:mod:`saga_kgqa.tools.evidence.patterns`), one UNION branch
joins the block with a ``VALUES`` table of the answer rows' bindings (row index, then each
variable the block shares with the answer): an IRI is bound as itself; a literal (whose datatype
the answer no longer carries) is matched by its lexical form, ``FILTER(STR(?v) = ?lexical)``.
Each branch is a subquery with its own LIMIT, one per row and block, so a row or block with many
matches cannot starve the others (a query too long for the guard to repeat per row groups its rows
two, four … to a branch instead), and the whole query has a LIMIT too. The text is built from escaped terms and still
passes the read-only guard before it reaches the graph, like any query.

Variables of a block the answer does not project (``?film :director ?d . ?d :name ?n`` asked for
``?film``) are read too, so the triples shown are whole; each block is solved on its own, so a
variable two blocks share but the answer does not bind is not forced to one value across them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from saga_kgqa.kg.core.result import Row, Term
from saga_kgqa.kg.guard.sparql_terms import iri, string_literal
from saga_kgqa.tools.evidence.patterns import Block, PatternTerm

#: The row index of a solution (a name no query the model writes is likely to use; checked anyway).
ROW_VAR = "_evidence_row"
BLOCK_VAR = "_evidence_block"
_IRI_VALUE = re.compile(r"^(?:https?|urn|ftp|file|mailto|tag):[^\s<>\"{}|\\^`]+$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Found:
    """One supporting triple read back: its terms (a path's text as predicate) and its pattern's index."""

    subject: Term
    predicate: Term
    object: Term
    pattern: int


@dataclass(slots=True)
class RowSupport:
    """The triples found for one answer row (distinct, in order), and whether a cap cut them."""

    triples: list[Found] = field(default_factory=list)
    truncated: bool = False


def lexical_name(variable: str) -> str:
    """The VALUES column carrying a literal's lexical form for ``variable``."""
    return f"_evidence_lex_{variable}"


def support_query(
    blocks: Sequence[Block], rows: Sequence[Mapping[str, str]], *, per_row: int, group_rows: int = 1
) -> tuple[str, int] | None:
    """The evidence query and its LIMIT, or ``None`` when no block can be asked.

    Args:
        blocks: The query's positive blocks.
        rows: The answer rows to support (variable → IRI or lexical form), already capped.
        per_row: Most solutions read per row and block.
        group_rows: Rows per subquery. One (the default) gives each row and block a subquery with its
            own LIMIT, so a row with many matches (an aggregate's group, a cross product) cannot
            starve the others; more rows per subquery make a shorter text, for a query too long to
            repeat per row (the rows of one subquery share its LIMIT).
    """
    branches = []
    for number, block in enumerate(blocks):
        names = block.variables
        if ROW_VAR in names or BLOCK_VAR in names:
            continue
        bound = [name for name in names if any(name in row for row in rows)]
        columns = " ".join("?" + column for column in [ROW_VAR, *(c for n in bound for c in (n, lexical_name(n)))])
        filters = " ".join(
            f"FILTER(!BOUND(?{lexical_name(name)}) || STR(?{name}) = ?{lexical_name(name)})" for name in bound
        )
        projected = " ".join(f"?{name}" for name in (ROW_VAR, *names))
        size = max(1, group_rows)
        groups = [list(range(start, min(start + size, len(rows)))) for start in range(0, len(rows), size)]
        for group in groups:
            table = " ".join(f"({' '.join(_cells(index, rows[index], bound))})" for index in group)
            branches.append(
                f"{{ {{ SELECT DISTINCT {projected} WHERE {{ VALUES ({columns}) {{ {table} }} "
                f"{block.text()} {filters} }} LIMIT {per_row * len(group)} }} BIND({number} AS ?{BLOCK_VAR}) }}"
            )
    if not branches:
        return None
    limit = per_row * len(rows) * len(blocks)
    return f"SELECT * WHERE {{ {' UNION '.join(branches)} }} LIMIT {limit}", limit


def _cells(index: int, row: Mapping[str, str], bound: Sequence[str]) -> list[str]:
    cells = [str(index)]
    for name in bound:
        value = row.get(name)
        if value is None or value.startswith("_:"):  # unbound in this row, or a blank node (no stable id)
            cells += ["UNDEF", "UNDEF"]
        elif _IRI_VALUE.match(value):
            cells += [iri(value), "UNDEF"]
        else:
            cells += ["UNDEF", string_literal(value)]
    return cells


def supported_rows(
    blocks: Sequence[Block], solutions: Sequence[Row], row_count: int, *, per_row: int
) -> list[RowSupport]:
    """Each answer row's supporting triples: every solution's block patterns with its bindings substituted.

    A pattern with a position still unbound (an OPTIONAL's variable) yields nothing; each row keeps at
    most ``per_row`` distinct triples and says when more were found.
    """
    support = [RowSupport() for _ in range(row_count)]
    seen: list[set[tuple[Term, Term, Term]]] = [set() for _ in range(row_count)]
    offsets = _pattern_offsets(blocks)
    for solution in solutions:
        row_index, block_index = _index(solution.get(ROW_VAR)), _index(solution.get(BLOCK_VAR))
        if row_index is None or block_index is None or not 0 <= row_index < row_count:
            continue
        if not 0 <= block_index < len(blocks):
            continue
        for position, triple in enumerate(blocks[block_index].triples):
            terms = [_bound(term, solution) for term in triple]
            if any(term is None for term in terms):
                continue
            subject, predicate, obj = terms
            assert subject is not None and predicate is not None and obj is not None
            key = (subject, predicate, obj)
            if key in seen[row_index]:
                continue
            seen[row_index].add(key)
            if len(support[row_index].triples) >= per_row:
                support[row_index].truncated = True
                continue
            support[row_index].triples.append(Found(subject, predicate, obj, offsets[block_index] + position))
    return support


def _pattern_offsets(blocks: Sequence[Block]) -> list[int]:
    offsets, total = [], 0
    for block in blocks:
        offsets.append(total)
        total += len(block.triples)
    return offsets


def _bound(term: PatternTerm, solution: Row) -> Term | None:
    """The term a pattern position stands for in one solution (``None``: unbound there)."""
    if term.variable is not None:
        return solution.get(term.variable)
    if term.path:
        return Term("uri", term.text)
    if term.text.startswith("<") and term.text.endswith(">"):
        return Term("uri", term.text[1:-1])
    return _literal(term.text)


def _literal(text: str) -> Term:
    """A literal constant of a pattern, from its escaped text (``"x"@en``, ``"3"^^<…>``, ``"x"``)."""
    found = re.fullmatch(r'"((?:[^"\\]|\\.)*)"(?:@([A-Za-z0-9-]+)|\^\^<([^>]*)>)?', text, re.DOTALL)
    if found is None:
        return Term("literal", text)
    value = re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r", "t": "\t"}.get(m.group(1), m.group(1)), found.group(1))
    return Term("literal", value, datatype=found.group(3), lang=found.group(2))


def _index(term: Term | None) -> int | None:
    try:
        return int(term.value) if term is not None else None
    except ValueError:
        return None

"""Keys pasted from another source's table into ``VALUES``, matched in the form this source stores them.

A model that copies side A's keys (``1``, ``"XX"``) into a query on side B (which stores
``"001"``, ``"scheme:xx"``, ``" XX"`` or ``<…/XX>``) gets nothing: ``VALUES`` compares RDF
terms exactly. When such a query comes back empty, :func:`rematch_pasted` reads how B writes
the ``VALUES`` variable (the query without its ``VALUES`` block, a few rows) and writes each
pasted key in each stored shape it saw, under the shown transformations of
:mod:`saga_kgqa.sources.key_match` (datatype, trim, number spelling, zero padding, local name,
prefix, case). If the rewritten query has rows it is the answer, and the observation says which
stored form each key matched; if it has none, the observation says why.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.clock import SYSTEM_CLOCK, Deadline
from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.guard.sparql_lexer import Token, tokenize
from saga_kgqa.kg.guard.sparql_terms import result_term
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.sources.key_match import match_key, normalisation, render, written
from saga_kgqa.state import TypeState
from saga_kgqa.tools.execute.models import ExecuteOutcome, ExecuteSettings
from saga_kgqa.tools.execute.tool import execute
from saga_kgqa.tools.render import cap_bytes, term_text

#: Rows read to learn how the source writes the variable.
PROBE_ROWS = 20
#: Stored shapes each pasted key is written in at most.
MAX_SHAPES = 6
#: Pasted keys rewritten at most.
MAX_KEYS = 300
_FORMS = ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")
#: How the note of an answer found by rebinding pasted keys starts (:func:`rematched_query` reads it).
REBOUND = "Note: the pasted ?"


@dataclass(frozen=True)
class ValuesBlock:
    """One single-variable ``VALUES ?v { … }`` block: its variable and where it is written."""

    variable: str
    start: int
    end: int
    body_start: int  # the top-level group's inside, or the whole text when there is none
    body_end: int
    prologue_end: int


def find_values(sparql: str) -> ValuesBlock | None:
    """The first single-variable ``VALUES`` block of the top-level group (or after it), if any."""
    tokens = tokenize(sparql)
    words = [t for t in tokens if t.kind == "word"]
    form = next((t for t in words if t.text.upper() in _FORMS and t.brace_depth == 0), None)
    if form is None:
        return None
    group = _top_group(tokens)
    for n, token in enumerate(tokens):
        if token.kind != "word" or token.text.upper() != "VALUES" or n + 2 >= len(tokens):
            continue
        var, brace = tokens[n + 1], tokens[n + 2]
        depth_ok = token.brace_depth == 0 or (group is not None and token.brace_depth == 1)
        if var.kind != "var" or brace.text != "{" or not depth_ok:
            continue
        close = next((t for t in tokens[n + 3 :] if t.text == "}" and t.brace_depth == brace.brace_depth), None)
        if close is None:
            return None
        start, end = (group[0].end, group[1].start) if group is not None else (0, len(sparql))
        return ValuesBlock(var.text[1:], token.start, close.end, start, end, form.start)
    return None


def _top_group(tokens: list[Token]) -> tuple[Token, Token] | None:
    opening = next((t for t in tokens if t.text == "{" and t.brace_depth == 0), None)
    if opening is None:
        return None
    after = tokens[tokens.index(opening) + 1 :]
    closing = next((t for t in after if t.text == "}" and t.brace_depth == 0), None)
    return (opening, closing) if closing is not None else None


def rematch_pasted(
    sparql: str,
    outcome: ExecuteOutcome,
    *,
    graph: KnowledgeGraph,
    schema: SchemaIndex | None,
    theta: TypeState | None,
    settings: ExecuteSettings,
    prefixes: Mapping[str, str],
) -> ExecuteOutcome | None:
    """The empty ``outcome`` of ``sparql`` answered again with its pasted keys in the stored form, or ``None``.

    ``None`` when the query has no single-variable ``VALUES`` block, the source holds no rows
    for the query without it, or every pasted key is already written in the stored shapes.
    """
    block = find_values(sparql)
    if block is None:
        return None
    deadline = Deadline(SYSTEM_CLOCK, settings.deadline_s)
    quiet = dataclasses.replace(settings, diagnose_empty=False)

    def run(query: str, rows: int) -> ExecuteOutcome:
        within = dataclasses.replace(quiet, deadline_s=max(deadline.remaining(), 0.001), max_result_rows=rows)
        return execute(query, graph=graph, schema=schema, theta=theta, settings=within)

    prologue = sparql[: block.prologue_end]
    values = sparql[block.start : block.end]
    pasted = run(f"{prologue} SELECT ?{block.variable} WHERE {{ {values} }}", MAX_KEYS)
    keys = [row[block.variable] for row in (pasted.result.rows if pasted.result else ()) if block.variable in row]
    body = sparql[block.body_start : block.start] + " " + sparql[block.end : block.body_end]
    probe = run(f"{prologue} SELECT DISTINCT ?{block.variable} WHERE {{ {body} }}", PROBE_ROWS)
    stored = [row[block.variable] for row in (probe.result.rows if probe.result else ()) if block.variable in row]
    stored = [term for term in stored if term.kind in ("uri", "literal")]
    if not keys or not stored:
        return None
    shapes = list({written(term).shape: written(term) for term in stored}.values())[:MAX_SHAPES]
    rewritten: dict[Term, Term] = {}
    for key in keys:
        for like in shapes:
            form = render(key, like)
            if form != key and match_key(form) == match_key(key):
                rewritten.setdefault(form, key)
    forms = [form for form in rewritten if _writable(form)]
    if not forms:
        return None
    terms = " ".join(result_term(term) for term in [*keys, *forms])
    query = sparql[: block.start] + f"VALUES ?{block.variable} {{ {terms} }}" + sparql[block.end :]
    again = run(query, settings.max_result_rows)
    example = term_text(stored[0], prefixes)
    if again.status != "ok":
        note = (
            f"Note: none of the {len(keys)} pasted ?{block.variable} values is stored here in any form tried: "
            f"the source writes ?{block.variable} like {example}, and the keys were also tried in that form "
            "(datatype, trimmed, number spelling, zero padding, local name, prefix, case). "
            "The keys may belong to another property or source."
        )
        return outcome.model_copy(update={"text": f"{outcome.text}\n{note}", "notes": (*outcome.notes, note)})
    matched = _matched(again, block.variable, rewritten, prefixes)
    note = (
        f"{REBOUND}{block.variable} values matched nothing as written; this source stores them "
        f"otherwise, so they were also bound in its stored form ({matched}). The rows are for the stored forms."
    )
    return again.model_copy(
        update={"text": cap_bytes(f"{note}\n{again.text}", settings.max_bytes), "notes": (*again.notes, note)}
    )


def rematched_query(outcome: ExecuteOutcome) -> str | None:
    """The query that answered when :func:`rematch_pasted` rebound the keys (the one to repeat), else ``None``."""
    return outcome.query if any(note.startswith(REBOUND) for note in outcome.notes) and outcome.query else None


def _writable(term: Term) -> bool:
    try:
        result_term(term)
    except QueryRejected:  # a form that cannot be written (an IRI with a space) is not tried
        return False
    return True


def _matched(outcome: ExecuteOutcome, variable: str, rewritten: dict[Term, Term], prefixes: Mapping[str, str]) -> str:
    """``1 → "001" (zero-padding); …``: the pasted keys whose stored form came back, a few of them."""
    found = [row[variable] for row in (outcome.result.rows if outcome.result else ()) if variable in row]
    seen = list(dict.fromkeys(term for term in found if term in rewritten)) or list(rewritten)
    pairs = [
        f"{term_text(rewritten[t], prefixes, cap=40)} → {term_text(t, prefixes, cap=40)} "
        f"({normalisation(rewritten[t], t)})"
        for t in seen[:3]
    ]
    more = f"; {len(seen) - 3} more" if len(seen) > 3 else ""
    return "; ".join(pairs) + more

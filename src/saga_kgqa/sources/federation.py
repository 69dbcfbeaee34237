"""Federated execution through the tools: one query per source, joined on a key the tools carry.

``join(LEFT: query 1 ==> RIGHT: query 2)`` runs query 1 on the left source, binds the
distinct values of the key variable (the first variable of query 1's result that query 2
also names, ``?key`` by preference) into query 2 as a ``VALUES`` block written in the right
side's form (a probe of query 2 shows whether its keys are strings, padded codes or
doubles: :func:`~saga_kgqa.sources.key_match.right_form`), runs that bound query on the right
source and joins the two results on the normalised key. The model never copies a key.

Each query is an ordinary ``execute_on``: the guard, the source's type check, caps,
record/replay and one deadline shared by the three calls. The *bound* query 2 is the
attempt that answered, so the final run re-runs it on the right source: the answer is
query 2's columns. SERVICE stays forbidden.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, SkipValidation

from saga_kgqa.errors import QueryRejected, ToolInputError
from saga_kgqa.kg.core.clock import SYSTEM_CLOCK, Deadline
from saga_kgqa.kg.core.result import QueryResult, Row, Term
from saga_kgqa.kg.guard.sparql_lexer import tokenize
from saga_kgqa.kg.guard.sparql_terms import result_term
from saga_kgqa.sources.grounding import execute_on_source
from saga_kgqa.sources.key_match import Normalisation, expression, match_key, normalisation, render, weakest, written
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.tools.execute.models import ExecuteSettings, ExecuteStatus
from saga_kgqa.tools.render import cap_bytes, iri_text, render_result_table

#: Distinct keys bound into query 2 at most (the bound query must stay under the guard's size cap).
MAX_KEYS = 300
#: Rows of query 2 read to learn the right side's key forms.
PROBE_ROWS = 20
#: Key forms (shapes the probe saw) each key is written in at most.
MAX_SHAPES = 6
#: Keys longer than this are not bound (no identifier is; the bound query must stay small).
MAX_BOUND_KEY_CHARS = 512
#: Left rows between two deadline checks.
_DEADLINE_EVERY = 256
_UNBINDABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
SEPARATOR = "==>"
_SIDE = re.compile(r"\A\s*([A-Za-z0-9][A-Za-z0-9_.\-]*)\s*:\s*(\S.*?)\s*\Z", re.DOTALL)


class JoinOutcome(BaseModel):
    """What one ``join`` produced.

    Attributes:
        status: ``ok`` (joined rows), ``empty``, or the failing step's status.
        text: The observation for the model, capped and escaped.
        left: The left source.
        right: The right source.
        key: The join variable (``None`` when no step ran far enough to choose it).
        normalisation: The rewrite that joined the keys.
        bound_query: Query 2 with step 1's keys bound: the query that answered, on ``right``.
        row_count: Joined rows (at most the row cap).
        product: Joined rows the two results make before any cut (``row_count`` when nothing was cut).
        bound_rows: Rows of the bound query 2 (what re-running the attempt returns).
        keys_bound: Distinct keys bound into query 2.
        result: The joined rows (not serialised).
    """

    model_config = ConfigDict(frozen=True)

    status: ExecuteStatus
    text: str
    left: str
    right: str
    key: str | None = None
    normalisation: Normalisation = "exact"
    bound_query: str = ""
    row_count: int = 0
    product: int = 0
    bound_rows: int = 0
    keys_bound: int = 0
    result: Annotated[QueryResult | None, SkipValidation] = Field(default=None, exclude=True, repr=False)


def parse_join(request: str) -> tuple[str, str, str, str]:
    """``(left, query 1, right, query 2)`` of ``"LEFT: query 1 ==> RIGHT: query 2"``.

    Raises:
        ToolInputError: The request is not two ``SOURCE: query`` parts joined by ``==>``.
    """
    parts = request.split(SEPARATOR)
    sides = [_SIDE.match(part) for part in parts]
    if len(parts) != 2 or sides[0] is None or sides[1] is None:
        raise ToolInputError(
            "write the argument as 'LEFT: query 1 ==> RIGHT: query 2' (two catalog source names, "
            "each followed by a colon and its SELECT query; the queries share the key variable, e.g. ?key)"
        )
    return sides[0].group(1), sides[0].group(2), sides[1].group(1), sides[1].group(2)


def join_sources(sources: SourceSet, request: str, *, settings: ExecuteSettings | None = None) -> JoinOutcome:
    """Run a two-source join: query 1 on the left, its keys bound into query 2 on the right, rows joined.

    Raises:
        ToolInputError: The request is malformed or the queries share no variable.
        UnknownName: A source name is not configured.
    """
    left, first, right, second = parse_join(request)
    settings = settings or ExecuteSettings()
    deadline = Deadline(SYSTEM_CLOCK, settings.deadline_s)
    a = execute_on_source(sources, left, first, settings=settings)
    names = sources.get(left).name, sources.get(right).name
    if a.status != "ok" or a.result is None:
        return JoinOutcome(
            status=a.status,
            text=f"step 1 on {left}: {a.text}\nNothing was run on {right}.",
            left=names[0],
            right=names[1],
        )
    key = _key_variable(a.variables, second)
    keys, unbindable = _bindable(_distinct(a.result.column(key)))
    probe = execute_on_source(
        sources, right, second, settings=_within(settings, deadline, max_result_rows=PROBE_ROWS, diagnose_empty=False)
    )
    if probe.status not in ("ok", "empty") or probe.result is None:
        return JoinOutcome(
            status=probe.status, text=f"step 2 on {right}: {probe.text}", key=key, left=names[0], right=names[1]
        )
    # One form per shape the probe saw (typed, plain, padded, prefixed, cased, an IRI): keys meet the stored form.
    seen = [written(row[key]) for row in probe.result.rows if key in row and row[key].kind in ("uri", "literal")]
    shapes = list({shape.shape: shape for shape in seen}.values())[:MAX_SHAPES]
    forms = [render(term, like) for term in keys[:MAX_KEYS] for like in shapes] if shapes else keys[:MAX_KEYS]
    bound_terms, _ = _bindable(_distinct(forms))
    bound = bind_values(second, key, bound_terms)
    b = execute_on_source(sources, right, bound, settings=_within(settings, deadline), rematch=False)
    if b.result is None or b.status not in ("ok", "empty"):
        return JoinOutcome(
            status=b.status,
            text=f"step 2 on {right}: {b.text}",
            key=key,
            bound_query=bound,
            left=names[0],
            right=names[1],
        )
    joined, rule, product, example = _join(a.result, b.result, key, cap=settings.max_result_rows, deadline=deadline)
    prefixes = sources.get(right).prefixes
    table = render_result_table(
        joined, max_rows=settings.max_rows_shown, max_cell_chars=settings.max_cell_chars, prefixes=prefixes
    )
    lines = [
        f"join of {left} (step 1: {len(a.result.rows)} rows, {len(keys)} distinct ?{key}) with {right} "
        f"(step 2 bound to {len(bound_terms)} keys: {len(b.result.rows)} rows) on ?{key}, "
        f"{rule} normalisation{_shown(rule, example, key, left, right)}:",
        table,
    ]
    if product > len(joined.rows):
        lines.append(
            f"Note: cut at {len(joined.rows):,} of at least {product:,} joined rows (the row cap, or the deadline); "
            "narrow step 1 or step 2."
        )
    if len(keys) > MAX_KEYS:
        lines.append(f"Note: only the first {MAX_KEYS} of {len(keys)} keys were bound; narrow step 1.")
    if unbindable:
        lines.append(
            f"Note: {unbindable} keys could not be bound (a control character such as NUL, or longer than "
            f"{MAX_BOUND_KEY_CHARS} characters) and were skipped; the rest joined."
        )
    if not joined.rows:
        lines.append(_empty_reason(a.result, b.result, probe.result, key, prefixes))
    lines.append(f"The answer is step 2's columns; the bound step 2 query on {right} is the attempt that answered.")
    return JoinOutcome(
        status="ok" if joined.rows else "empty",
        text=cap_bytes("\n".join(lines), settings.max_bytes),
        key=key,
        normalisation=rule,
        bound_query=bound,
        row_count=len(joined.rows),
        product=product,
        bound_rows=len(b.result.rows),
        keys_bound=len(bound_terms),
        result=joined,
        left=names[0],
        right=names[1],
    )


def _within(settings: ExecuteSettings, deadline: Deadline, **changes: object) -> ExecuteSettings:
    """The settings of a later step: what is left of the join's one deadline."""
    return dataclasses.replace(settings, deadline_s=max(deadline.remaining(), 0.001), **changes)  # type: ignore[arg-type]


def _key_variable(variables: tuple[str, ...], second: str) -> str:
    named = [v for v in variables if re.search(rf"[?$]{re.escape(v)}\b", second)]
    if not named:
        raise ToolInputError(
            f"query 2 names none of query 1's variables ({', '.join('?' + v for v in variables)}): "
            "use the same variable for the key in both, e.g. ?key"
        )
    return "key" if "key" in named else named[0]


def _distinct(terms: list[Term]) -> list[Term]:
    return list(dict.fromkeys(term for term in terms if term.kind in ("uri", "literal")))


def bind_values(query: str, variable: str, terms: list[Term]) -> str:
    """``query`` with ``VALUES ?variable { … }`` opening its WHERE group (the first top-level ``{``).

    Raises:
        ToolInputError: The query has no group to bind into.
    """
    brace = next((t for t in tokenize(query) if t.kind == "punct" and t.text == "{" and t.brace_depth == 0), None)
    if brace is None:
        raise ToolInputError("query 2 has no WHERE { … } group to bind the keys into")
    values = f" VALUES ?{variable} {{ {' '.join(result_term(t) for t in terms)} }} "
    return query[: brace.end] + values + query[brace.end :]


def _bindable(terms: list[Term]) -> tuple[list[Term], int]:
    """The keys that can be written into a ``VALUES`` block, and how many could not (NUL, over-long, bad IRI)."""
    kept: list[Term] = []
    for term in terms:
        if len(term.value) > MAX_BOUND_KEY_CHARS or _UNBINDABLE.search(term.value):
            continue
        try:
            result_term(term)
        except QueryRejected:
            continue
        kept.append(term)
    return kept, len(terms) - len(kept)


def _shown(rule: Normalisation, example: tuple[Term, Term] | None, key: str, left: str, right: str) -> str:
    """`` (lower(left ?key) = right ?key)``: the transformation that met the keys, on one matched pair."""
    if example is None or rule == "exact":
        return ""
    return f" ({expression(rule, example[0], example[1], f'{left} ?{key}', f'{right} ?{key}')})"


def _join(
    a: QueryResult, b: QueryResult, key: str, *, cap: int, deadline: Deadline
) -> tuple[QueryResult, Normalisation, int, tuple[Term, Term] | None]:
    """Rows of ``a`` and ``b`` whose keys match after normalisation (``a``'s key kept), and the product's size.

    Streams the product and stops building rows at ``cap`` (or when the deadline passes): the
    size of the whole product is counted per left row from the right side's buckets, never built.
    """
    by_key: dict[str, list[Row]] = {}
    for row in b.rows:
        if key in row:
            by_key.setdefault(match_key(row[key]), []).append(row)
    rows: list[Row] = []
    used: dict[Normalisation, int] = {}
    example: tuple[Term, Term] | None = None
    product = 0
    out_of_time = False
    for n, row in enumerate(a.rows):
        if key not in row:
            continue
        matches = by_key.get(match_key(row[key]), [])
        product += len(matches)
        if n % _DEADLINE_EVERY == 0 and deadline.expired():
            out_of_time = True
        for other in matches:
            if len(rows) >= cap or out_of_time:
                break
            rule = normalisation(row[key], other[key])
            used[rule] = used.get(rule, 0) + 1
            if example is None or (rule != "exact" and len(rule) > len(normalisation(*example))):
                example = (row[key], other[key])
            rows.append({**other, **row})
    variables = list(a.variables) + [v for v in b.variables if v not in a.variables]
    truncated = a.truncated or b.truncated or product > len(rows)
    joined = QueryResult(form="SELECT", variables=variables, rows=rows, truncated=truncated)
    return joined, weakest(used), product, example


def _empty_reason(a: QueryResult, b: QueryResult, probe: QueryResult, key: str, prefixes: Mapping[str, str]) -> str:
    """Why the join is empty: no right rows at all, or keys of different datatypes that never meet."""
    if not probe.rows:
        return "Diagnosis: step 2 returns no rows even without the keys; fix step 2 first."
    left_types = {t.datatype or "" for t in a.column(key)}
    right_types = {t.datatype or "" for t in probe.column(key)}
    if left_types != right_types:
        return (
            f"Diagnosis: datatype mismatch: step 1's ?{key} is {_kinds(left_types, prefixes)}, "
            f"step 2's is {_kinds(right_types, prefixes)}, and no normalisation joined them."
        )
    return (
        f"Diagnosis: step 2 has {len(probe.rows)}+ rows, but {len(b.rows)} with step 1's ?{key} values: "
        "check that both queries use the bridge's key properties."
    )


def _kinds(datatypes: set[str], prefixes: Mapping[str, str]) -> str:
    return ", ".join(iri_text(d, prefixes) if d else "a plain string" for d in sorted(datatypes))

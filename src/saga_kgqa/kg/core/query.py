"""The only kind of query a backend accepts: one that passed the guard or was built by us.

Backends take a :class:`CheckedQuery`, never a bare string, so the type checker proves
that every model- or user-written query went through :mod:`saga_kgqa.kg.guard.query_guard` first.
Queries the project builds itself from templates with escaped terms are wrapped with
:func:`from_template`, which is the single, greppable place where the guard is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from saga_kgqa.kg.core.result import QueryForm

QueryOrigin = Literal["guard", "template"]


@dataclass(frozen=True, slots=True)
class CheckedQuery:
    """A query that may be sent to a store.

    Attributes:
        text: The exact text to send (LIMIT clamped or injected where the guard did so).
        form: The query form.
        origin: ``guard`` for model/user text that passed the guard, ``template`` for
            queries built by saga-kgqa from escaped terms.
        limit: The effective top-level LIMIT, if any.
        source_text: The text as it was written, before the guard rewrote it.
        limit_capped: ``True`` when the guard injected the top-level LIMIT or lowered
            the one written, so a result that fills it may be missing rows.
        bounded: ``False`` for a template whose cost is not bounded by construction (a
            survey probe aggregating over a class or the whole graph): a store that runs
            bounded templates without a deadline runs this one where its deadline holds.
        rewrites: One line per rewrite made so this store can run a query written for
            another engine (:mod:`saga_kgqa.kg.guard.portability`, the label service).
    """

    text: str
    form: QueryForm
    origin: QueryOrigin
    limit: int | None = None
    source_text: str = ""
    limit_capped: bool = False
    bounded: bool = True
    rewrites: tuple[str, ...] = ()


def from_template(
    text: str, form: QueryForm = "SELECT", *, limit: int | None = None, bounded: bool = True
) -> CheckedQuery:
    """Wrap a query built by saga-kgqa itself from a template and escaped terms.

    Args:
        text: The query text. Every IRI or literal in it must have been escaped by
            :mod:`saga_kgqa.kg.guard.sparql_terms`; model text must never reach this function.
        form: The query form.
        limit: The LIMIT the template applies, if any.
        bounded: ``False`` when the query's cost grows with the graph (an aggregate over a
            class or every triple): the embedded store then enforces its deadline by running
            it in its killable worker instead of in-process.

    Returns:
        A query that backends accept without parsing it again.
    """
    return CheckedQuery(text=text, form=form, origin="template", limit=limit, source_text=text, bounded=bounded)

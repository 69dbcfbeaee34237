"""The guard's checks against engine extensions: functions, Virtuoso pragmas and IRIs, FROM graphs.

Stores reach outside through extensions the SPARQL grammar cannot tell from ordinary
calls (issue 10, hole 3): on Virtuoso, ``bif:http_get("http://…")`` fetches a URL and
returns its body as a row, ``DEFINE get:soft "replace"`` / ``DEFINE input:grab-all``
switch on the Sponger, and with the Sponger on ``FROM <url>`` fetches and stores remote
triples. So:

* a function call must name SPARQL 1.1's built-ins (keywords, never IRIs), an XSD cast,
  or a function the profile declares (:attr:`EndpointProfile.allowed_functions`, e.g.
  ``geof:distance`` on Wikidata): an allow-list, so an unknown engine's extension is
  refused too;
* ``DEFINE`` is refused by name (it is no SPARQL keyword), before any prefix check;
* IRIs in Virtuoso's ``bif:`` and ``sql:`` schemes are refused anywhere (as a magic
  predicate such as ``?o bif:contains "x"``, in PREFIX or BASE);
* FROM / FROM NAMED may only name graphs the operator allowed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import Any

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.profiles import EndpointProfile
from saga_kgqa.kg.guard import sparql_grammar
from saga_kgqa.kg.guard.messages import rejected_at
from saga_kgqa.kg.guard.sparql_lexer import Token

#: XSD datatype IRIs are casts (``xsd:integer("3")``); SPARQL 1.1 defines them as functions.
XSD_NAMESPACE = "http://www.w3.org/2001/XMLSchema#"
#: Virtuoso's schemes for its built-in (``bif:``) and SQL (``sql:``) procedures.
ENGINE_SCHEMES = ("bif:", "sql:")
_SHOWN_GRAPHS = 5


class AllowedGraphs(Collection[str]):
    """Graphs FROM / FROM NAMED may name: fixed ones plus, computed on first use, a backend's own."""

    def __init__(self, fixed: Collection[str], extra: Collection[str] | Callable[[], Collection[str]]) -> None:
        self._fixed = fixed
        self._extra = extra
        self._graphs: frozenset[str] | None = None

    def _all(self) -> frozenset[str]:
        if self._graphs is None:
            extra = self._extra() if callable(self._extra) else self._extra
            self._graphs = frozenset(self._fixed) | frozenset(extra)
        return self._graphs

    def __contains__(self, item: object) -> bool:
        return item in self._all()

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def reject_pragmas(tokens: list[Token], text: str) -> None:
    """Refuse Virtuoso's ``DEFINE name value`` pragmas, which reconfigure the engine per query."""
    for token in tokens:
        if token.kind == "word" and token.text.upper() == "DEFINE":
            advice = "): remove the DEFINE lines and send plain SPARQL"
            raise rejected_at(text, token.start, "pragma", "engine pragmas are not allowed (DEFINE", advice)


def reject_engine_iris(tokens: list[Token], text: str) -> None:
    """Refuse any IRI written in a ``bif:`` or ``sql:`` scheme (a call, a magic predicate, PREFIX or BASE)."""
    for token in tokens:
        if token.kind == "iri" and token.text[1:-1].strip().lower().startswith(ENGINE_SCHEMES):
            what = f"engine extension IRIs are not allowed ({token.text[:60]}"
            raise rejected_at(text, token.start, "function", what, "): use SPARQL 1.1 built-in functions only")


def check_functions(algebra: Any, profile: EndpointProfile) -> None:
    """Refuse calls of IRI functions other than XSD casts and the profile's own functions."""
    for node in sparql_grammar.iter_components(algebra, "Function"):
        iri = str(node.get("iri"))
        if iri.startswith(XSD_NAMESPACE) or iri in profile.allowed_functions:
            continue
        extra = ""
        if profile.allowed_functions:
            names = ", ".join(f"<{name}>" for name in sorted(profile.allowed_functions))
            extra = f", XSD casts and {names}"
        else:
            extra = " and XSD casts"
        raise QueryRejected(
            f"function <{iri[:120]}> is not allowed on this endpoint: use SPARQL 1.1 built-ins{extra}",
            reason="function",
        )


def check_datasets(algebra: Any, allowed: Collection[str]) -> None:
    """Refuse FROM / FROM NAMED graphs outside ``allowed``.

    Args:
        algebra: The translated query (prefixes and BASE resolved).
        allowed: Graph IRIs the operator allowed for this backend.
    """
    for clause in sparql_grammar.iter_components(algebra, "DatasetClause"):
        # CompValue.get returns the key itself when it is missing: test membership instead.
        named = "named" in clause
        iri = str(clause["named"] if named else clause["default"])
        if iri in allowed:
            continue
        keyword = "FROM NAMED" if named else "FROM"
        if allowed:
            shown = ", ".join(f"<{graph}>" for graph in sorted(allowed)[:_SHOWN_GRAPHS])
            more = f" and {len(allowed) - _SHOWN_GRAPHS} more" if len(allowed) > _SHOWN_GRAPHS else ""
            where = f"(allowed: {shown}{more})"
        else:
            where = "(this endpoint allows no FROM graphs: query its default graph)"
        raise QueryRejected(
            f"{keyword} <{iri[:120]}> is not allowed {where}; remove the clause",
            reason="graph",
        )

r"""Parsing SPARQL into rdflib's algebra, with the IRIs fixed where rdflib gets them wrong.

rdflib keeps the backslash of escaped local names: ``:singer\#name`` becomes the IRI
``.../singer\#name`` in its algebra, while the data (and pyoxigraph) has
``.../singer#name``. A backslash can never appear in an IRI written in angle brackets
(IRIREF excludes it), so every backslash in an algebra IRI came from a ``PN_LOCAL_ESC``
and :func:`unescape_local_name` may remove it safely.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator, Mapping
from typing import Any

from pyparsing import ParseException
from rdflib.plugins.sparql.algebra import translatePName, translatePrologue, translateQuery, traverse
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.sparql.sparql import Prologue
from rdflib.term import URIRef

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.guard import sparql_grammar

#: The query forms at an algebra's root; each has its pattern as ``p``.
QUERY_FORMS = frozenset({"SelectQuery", "AskQuery", "ConstructQuery", "DescribeQuery"})
#: The nodes every walker over a query's patterns passes straight through to ``p``: the query forms and
#: the solution modifiers that keep the bindings of their pattern (projection, DISTINCT, REDUCED,
#: ORDER BY, BIND). A walker adds the nodes it means to treat alike (a slice, a grouping, a filter,
#: ``GRAPH``) as a named set of its own, so a difference between walkers is stated, never copied.
SOLUTION_MODIFIERS = QUERY_FORMS | {"Project", "Distinct", "Reduced", "OrderBy", "Extend"}
#: Grouping: ``Group`` under the ``AggregateJoin`` that computes the aggregates.
GROUPING = frozenset({"Group", "AggregateJoin"})


class _EscapedIriWarningFilter(logging.Filter):
    """Silence rdflib's "does not look like a valid URI" for IRIs we unescape ourselves."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not ("does not look like a valid URI" in message and "\\" in message)


logging.getLogger("rdflib.term").addFilter(_EscapedIriWarningFilter())


class _DictPrologue(Prologue):
    """A prologue that maps every prefix independently, as SPARQL does.

    It never builds rdflib's namespace manager (a graph with rdflib's default prefixes bound, about
    0.25 ms of every parse): its own dictionary resolves every prefixed name, and nothing reads
    the manager of this prologue (it resolves names in :func:`parse_algebra` and is then dropped).
    """

    def __init__(self) -> None:  # no super().__init__(): see the class doc
        self.base = ""
        self._namespaces: dict[str, str] = {}

    def bind(self, prefix: str | None, uri: Any) -> None:
        self._namespaces[prefix or ""] = str(uri)

    def resolvePName(self, prefix: str | None, localname: str | None) -> URIRef:
        namespace = self._namespaces.get(prefix or "")
        if namespace is None:
            raise QueryRejected(f"unknown prefix {prefix or ''}:", reason="syntax")
        return URIRef(namespace + (localname or ""))


def parse_algebra(
    sparql: str, prefixes: Mapping[str, str] | None = None, *, comments_blanked: bool = False
) -> CompValue:
    """Parse a query and return the root of its algebra (``SelectQuery``, ``AskQuery``, ...).

    Args:
        sparql: The query text.
        prefixes: Prefixes assumed when the query does not declare them (``""`` is the
            default prefix, as in Spider4SPARQL's ``:country``).
        comments_blanked: The text is a guard-checked query (comments blanked, escapes
            expanded), so the guard's faster grammar can parse it.

    Raises:
        QueryRejected: The text is not a SPARQL query (``reason="syntax"``, with line and
            column) or is too deeply nested to analyse (``reason="too_complex"``).
    """
    try:
        # Quiet: rdflib logs a traceback for a literal it cannot convert ("2000"^^xsd:dateTime).
        with sparql_grammar.quiet_terms():
            parsed = (
                sparql_grammar.parse_query(sparql) if comments_blanked else sparql_grammar.parse_public_query(sparql)
            )
            # Resolve prefixed names with our own prologue first: rdflib's binds one prefix per
            # namespace, so two prefixes for one IRI (legal SPARQL) lose the first binding.
            prologue = translatePrologue(parsed[0], None, dict(prefixes or {}), prologue=_DictPrologue())
            parsed[1] = traverse(parsed[1], visitPost=functools.partial(translatePName, prologue=prologue))
            query = translateQuery(parsed)
    except ParseException as exc:
        raise QueryRejected(f"not a SPARQL query: {exc}", reason="syntax", line=exc.lineno, column=exc.col) from exc
    except RecursionError as exc:
        raise QueryRejected("the query is nested too deeply to analyse", reason="too_complex") from exc
    except QueryRejected:
        raise
    except Exception as exc:  # rdflib raises bare Exception for unknown prefixes and similar
        raise QueryRejected(f"cannot analyse the query: {exc}", reason="syntax") from exc
    root: CompValue = query.algebra
    return root


def iter_nodes(root: Any) -> Iterator[CompValue]:
    """Yield every algebra node below ``root`` (included), without recursion."""
    stack: list[Any] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, CompValue):
            yield item
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


def iter_triple_patterns(root: Any) -> Iterator[tuple[Any, Any, Any]]:
    """Yield every triple pattern of every basic graph pattern below ``root``, wherever it sits.

    Terms are rdflib terms as the algebra holds them (predicates may be property paths);
    pass IRIs through :func:`unescape_local_name` before comparing them with data.
    """
    for node in iter_nodes(root):
        if node.name == "BGP":
            yield from node.triples

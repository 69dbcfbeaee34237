"""rdflib's SPARQL query grammar, loaded privately and without comment skipping.

rdflib's grammar tells pyparsing to try skipping a ``#`` comment before every single
element, which is about half of its parse time (3.3 ms instead of 6.7 ms per CK25 query
on this project's machine). The guard already tokenizes the query and blanks comments
(:func:`saga_kgqa.kg.guard.sparql_lexer.blank_comments`), so it parses with a private copy of
the grammar whose comment skipping is switched off. The copy is made by executing
rdflib's own parser module a second time under its own name, so rdflib's shared
grammar, which other code may use, is never modified.

Soundness does not depend on the blanking being perfect: the guard sends exactly the
text it parsed. A ``#`` the tokenizer failed to blank makes this grammar fail (the query
is rejected); text it blanked by mistake is not sent either.

If the private copy cannot be built (a future rdflib reorganised its parser), parsing
falls back to rdflib's public ``parseQuery``, which is slower but equivalent here.

Both grammars, the private copy and rdflib's shared one, have their parse actions settled
at import (:mod:`saga_kgqa.kg.guard.parse_actions`): pyparsing's first-call arity search is
not thread-safe and, raced, broke every later parse in the process. Settling fixes the
count each action already takes; nothing about what the grammars accept changes. Should
settling ever fail (a pyparsing that wraps actions differently), every parse here is
serialised under one lock instead.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from types import ModuleType
from typing import Any

from rdflib.plugins.sparql import parser as rdflib_parser
from rdflib.plugins.sparql.algebra import translateQuery
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.sparql.sparql import Query

from saga_kgqa.kg.guard.parse_actions import settle_grammar

_log = logging.getLogger(__name__)

ParseFunction = Callable[[str], Any]

_checking: ContextVar[bool] = ContextVar("saga_guard_checking", default=False)


class _QuietWhileChecking(logging.Filter):
    r"""Drop rdflib's term warnings raised while the guard parses.

    While parsing, rdflib builds terms and warns about things that do not matter for a
    read-only check: escaped local names it keeps with their backslash
    (``:singer\\#name``), literals such as ``"2020-00-00"^^xsd:dateTime``. Outside the
    guard (a context variable says when), rdflib's warnings pass untouched.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR or not _checking.get()


logging.getLogger("rdflib.term").addFilter(_QuietWhileChecking())


def _strip_comment_skipping(root: Any) -> int:
    """Clear ``ignoreExprs`` on every element reachable from ``root``; return how many were visited."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        element = stack.pop()
        if id(element) in seen:
            continue
        seen.add(id(element))
        element.ignoreExprs = []
        stack.extend(getattr(element, "exprs", None) or [])
        inner = getattr(element, "expr", None)
        if inner is not None:
            stack.append(inner)
    return len(seen)


def _load_private_grammar() -> ModuleType:
    spec = importlib.util.find_spec(rdflib_parser.__name__)
    if spec is None or spec.loader is None:
        raise ImportError("rdflib's SPARQL parser module has no loader")
    module = importlib.util.module_from_spec(spec)
    # Executed but never registered in sys.modules: rdflib keeps its own module.
    spec.loader.exec_module(module)
    # Parsing once makes pyparsing streamline the grammar; strip afterwards so that no
    # element created while streamlining keeps a comment expression.
    module.Query.parse_string("ASK {}", parse_all=True)
    _strip_comment_skipping(module.Query)
    return module


def _settle_all(private: ModuleType | None) -> bool:
    """Settle the parse actions of rdflib's shared grammar and of the private copy."""
    roots = [rdflib_parser.Query, rdflib_parser.UpdateUnit]
    if private is not None:
        roots.append(private.Query)
    try:
        return settle_grammar(*roots)
    except Exception:  # an unexpected grammar shape: stay correct by serialising parses
        _log.warning("could not settle the SPARQL grammars' parse actions; parses are serialised", exc_info=True)
        return False


def _build_parser() -> tuple[ParseFunction, bool, bool]:
    try:
        module = _load_private_grammar()
    except Exception:  # any failure just means the slower public parser is used
        _log.warning("could not build the fast SPARQL grammar; using rdflib.parseQuery", exc_info=True)
        return rdflib_parser.parseQuery, False, _settle_all(None)
    query_element = module.Query

    def parse(text: str) -> Any:
        return query_element.parse_string(text, parse_all=True)

    return parse, True, _settle_all(module)


_parse, FAST_GRAMMAR, THREAD_SAFE = _build_parser()
# Held around every parse only when the grammars could not be settled (see the module doc).
_serial = threading.Lock() if not THREAD_SAFE else contextlib.nullcontext()


@contextlib.contextmanager
def quiet_terms() -> Iterator[None]:
    """Drop rdflib's term warnings (with their tracebacks) while our own code parses or translates."""
    token = _checking.set(True)
    try:
        yield
    finally:
        _checking.reset(token)


def parse_query(text: str) -> Any:
    r"""Parse query text that has no comments and no ``\\u`` escapes left.

    Args:
        text: Text prepared by the guard (escapes expanded, comments blanked).

    Returns:
        rdflib's parse tree: ``(prologue, query)``.

    Raises:
        pyparsing.ParseException: The text is not a SPARQL query.
        RecursionError: The text nests deeper than pyparsing's recursion allows.
    """
    with _serial, quiet_terms():
        return _parse(text)


def parse_public_query(text: str) -> Any:
    """Parse any query text (comments allowed) with rdflib's own grammar, safe from many threads.

    Returns and raises as :func:`parse_query` does.
    """
    with _serial, quiet_terms():
        return rdflib_parser.parseQuery(text)


def translate(parsed: Any, prefixes: Mapping[str, str]) -> Query:
    """Translate a parse tree into rdflib's algebra, resolving prefixes and BASE.

    Args:
        parsed: The tree returned by :func:`parse_query` (it is modified in place).
        prefixes: Prefixes the endpoint predeclares; the query's own PREFIX lines win.

    Returns:
        The prepared query; ``algebra`` holds the resolved operator tree.

    Raises:
        Exception: rdflib raises a bare ``Exception`` for an unknown prefix and other
            semantic errors.
    """
    with quiet_terms():
        return translateQuery(parsed, base=None, initNs=dict(prefixes))


def iter_components(root: Any, name: str) -> Iterator[CompValue]:
    """Yield every ``CompValue`` called ``name`` anywhere under ``root``.

    The walk is iterative (no recursion limit) and descends into expressions as well,
    so patterns inside ``FILTER EXISTS`` / ``NOT EXISTS`` are found. rdflib stores the
    translated pattern of an ``EXISTS`` as an instance attribute (``expr.graph = …``),
    leaving the untranslated one, its FILTERs removed, under the dict key, so instance
    attributes are walked too.
    """
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, CompValue):
            if node.name == name:
                yield node
            stack.extend(node.values())
            stack.extend(value for key, value in vars(node).items() if key != "ctx")
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list | tuple | set | frozenset):
            stack.extend(node)

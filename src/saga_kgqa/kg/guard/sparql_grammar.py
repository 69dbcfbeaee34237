"""rdflib's SPARQL query grammar for the guard: rdflib's own at first, a faster private copy once it pays.

rdflib's grammar tells pyparsing to try skipping a ``#`` comment before every single
element, which is about half of its parse time (3.3 ms instead of 6.7 ms per CK25 query
on this project's machine). The guard already tokenizes the query and blanks comments
(:func:`saga_kgqa.kg.guard.sparql_lexer.blank_comments`), so a long-running process parses
with a private copy of the grammar whose comment skipping is switched off. The copy is made
by executing rdflib's own parser module a second time under its own name, so rdflib's
shared grammar, which other code may use, is never modified.

The copy is built lazily (issue 39): a command that checks one query (``saga sparql``) paid
for a second grammar it parsed one query with, the largest part of its start-up beyond its
floor. The first :data:`FAST_AFTER` parses of a process use rdflib's shared grammar (on
blanked text it accepts exactly what the copy accepts, only more slowly); the parse that
reaches the count builds the copy once, and every later parse uses it. Threads that parse
while it is being built keep the shared grammar instead of waiting. The copy is never
cached across processes: pyparsing elements hold parse actions by reference, and a pickled
grammar would be trusted code read from disk.

Soundness does not depend on the blanking being perfect: the guard sends exactly the
text it parsed. A ``#`` the tokenizer failed to blank makes the copy fail (the query
is rejected) and the shared grammar read it as the comment the store reads too; text it
blanked by mistake is not sent either.

A server expects many parses (:func:`expect_many_parses`): it builds the copy at its first parse,
while it serves its first request, instead of at the 48th. Built mid-burst, its 3.5 MB of
long-lived grammar objects landed among the burst's short-lived ones (issue 38, docs/faults.md AH17).

If the private copy cannot be built (a future rdflib reorganised its parser), parsing
keeps rdflib's public ``parseQuery``, which is slower but equivalent here.

Parses from several threads need the grammars' parse actions settled
(:mod:`saga_kgqa.kg.guard.parse_actions`): pyparsing's first-call arity search is not
thread-safe and, raced, broke every later parse in the process. Until rdflib's shared grammar
is settled, parses here take turns under a lock; the first thread that finds the lock taken
settles it (no parse runs meanwhile), and from then on parses run side by side. A command
parsing from one thread never pays for settling (about 45 ms). The copy is settled right after
it is built, before any thread can use it. Settling fixes the count each action already
takes; nothing about what the grammars accept changes. Should settling ever fail (a pyparsing
that wraps actions differently), parses keep taking turns, and a copy that could not be
settled is not used. Code that parses SPARQL with rdflib goes through :func:`parse_public_query`
(never ``prepareQuery``), so its parses take the same turns.
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
from saga_kgqa.kg.guard.sparql_lexer import blank_comments, tokenize

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


#: Parses of a process before the private copy is built: it costs about as much as 30-60 parses save.
FAST_AFTER = 48


class _Grammars:
    """Which grammar parses now, when rdflib's shared one is settled, and the one-time build of the copy."""

    def __init__(self) -> None:
        self.parse: ParseFunction = rdflib_parser.parseQuery
        self.fast = False
        self.copies_built = 0
        self.parses = 0
        #: The parse that reaches this count builds the copy (:data:`FAST_AFTER`; 1 in a server).
        self.fast_after = FAST_AFTER
        #: None: not settled yet (parses take turns); True: settled (no lock); False: could not be, turns forever.
        self.settled: bool | None = None
        self._turns = threading.Lock()
        self._contended = False
        self._build_lock = threading.Lock()
        self._build_tried = False

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """Parse alone until the shared grammar is settled; the first thread that has to wait settles it.

        pyparsing's arity search is only unsafe when two threads make first calls at once, so a
        process that parses from one thread (a command) never pays for settling, and one that
        parses from several settles at the first sign of a second thread, before that thread parses.
        """
        if self.settled:
            yield
            return
        if not self._turns.acquire(blocking=False):
            self._contended = True
            self._turns.acquire()
        try:
            if self.settled is None and self._contended:
                self.settled = _settle(rdflib_parser.Query, rdflib_parser.UpdateUnit)
            yield
        finally:
            self._turns.release()

    def settle_now(self) -> bool:
        """Settle the shared grammar now (no parse runs meanwhile); return whether it is settled."""
        self._contended = True
        with self.turn():
            pass
        return bool(self.settled)

    def counted(self) -> None:
        """Count one parse; the one that reaches :attr:`fast_after` builds the private copy."""
        self.parses += 1  # a lost increment under a race only delays the build by a parse
        if self.parses >= self.fast_after and not self._build_tried:
            self.build()

    def build(self) -> bool:
        """Build, settle and switch to the private copy once; threads that arrive meanwhile do not wait.

        Returns:
            Whether the private copy is in use.
        """
        if not self._build_lock.acquire(blocking=False):
            return self.fast
        try:
            if self._build_tried:
                return self.fast
            self._build_tried = True
            try:
                module = _load_private_grammar()
            except Exception:  # any failure just means the slower public parser stays
                _log.warning("could not build the fast SPARQL grammar; using rdflib.parseQuery", exc_info=True)
                return False
            self.copies_built += 1
            if not _settle(module.Query):
                return False  # an unsettled copy is never shared between threads
            query_element = module.Query

            def parse(text: str) -> Any:
                return query_element.parse_string(text, parse_all=True)

            self.parse, self.fast = parse, True
            return True
        finally:
            self._build_lock.release()


def _settle(*roots: Any) -> bool:
    try:
        return settle_grammar(*roots)
    except Exception:  # an unexpected grammar shape: stay correct by serialising parses
        _log.warning("could not settle the SPARQL grammars' parse actions; parses are serialised", exc_info=True)
        return False


_grammars = _Grammars()


def fast_grammar() -> bool:
    """Whether parses use the private copy without comment skipping (after :data:`FAST_AFTER` parses)."""
    return _grammars.fast


def private_copies_built() -> int:
    """How many private copies of rdflib's grammar this process built (0 or 1)."""
    return _grammars.copies_built


def thread_safe() -> bool:
    """Settle rdflib's shared grammar now if need be; whether parses may then run concurrently without a lock."""
    return _grammars.settle_now()


def build_fast_grammar() -> bool:
    """Build the private copy now instead of after :data:`FAST_AFTER` parses (a server that expects many).

    Returns:
        Whether the private copy is in use.
    """
    return _grammars.build()


def expect_many_parses() -> None:
    """This process will parse many queries (a server): build the private copy at its first parse."""
    _grammars.fast_after = 1


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
    grammars = _grammars
    try:
        with grammars.turn(), quiet_terms():
            return grammars.parse(text)
    finally:
        grammars.counted()


def parse_public_query(text: str) -> Any:
    """Parse any query text (comments allowed), safe from many threads.

    Once the private copy is in use, the text's comments are blanked (the guard's lexer) and it
    parses there, at half the cost: the answer's evidence, its shape and the guard's algebra
    checks parse the same queries again. Text the copy does not accept goes to rdflib's own
    grammar, which decides, so what is accepted never changes.

    Returns and raises as :func:`parse_query` does.
    """
    grammars = _grammars
    try:
        if grammars.fast:
            with contextlib.suppress(Exception), grammars.turn(), quiet_terms():
                return grammars.parse(blank_comments(text, tokenize(text)) if "#" in text else text)
        with grammars.turn(), quiet_terms():
            return rdflib_parser.parseQuery(text)
    finally:
        grammars.counted()


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

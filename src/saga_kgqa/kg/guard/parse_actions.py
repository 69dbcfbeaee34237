"""Settle pyparsing's parse-action arity before any thread parses.

pyparsing lets a parse action take ``(s, loc, toks)``, ``(loc, toks)``, ``(toks)`` or
nothing. It does not read the signature: its wrapper (``_trim_arity``) calls the action
with three arguments and, on a ``TypeError`` raised at the call, retries with one fewer,
remembering the count in two closure variables (``limit``, ``found_arity``). That search
is not thread-safe: two threads making an action's first call at once both increment
``limit``, one of them locks in the wrong count, and from then on *every* parse through
that action fails (``Param.postParse2() missing 1 required positional argument``,
``<lambda>() missing 1 required positional argument: 'x'``) until the process restarts.
Every server reaches the guard from several threads, so a double click broke the guard for
good.

This module resolves each wrapper's count once, single-threaded, at import: from the
action's signature, the same count pyparsing's search would find, written into the
wrapper's own closure cells, so every copy of the element that shares the wrapper is
settled too. Grammars are walked from their roots after ``streamline()`` (the other
one-time mutation pyparsing makes on a first parse).

If pyparsing's wrapper ever changes shape (other closure names), :func:`settle_grammar`
reports that it could not settle everything and callers serialise their parses instead.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterator
from types import FunctionType
from typing import Any

_log = logging.getLogger(__name__)

# pyparsing calls every parse action with (instring, loc, tokens).
_ARGS_GIVEN = 3
# The closure variables of pyparsing's ``_trim_arity`` wrapper (pyparsing 3.x).
_WRAPPER_CELLS = frozenset({"func", "limit", "found_arity"})
# Element attributes that lead to further elements.
_CHILD_ATTRIBUTES = ("expr", "exprs", "ignoreExprs", "ignoreExpr", "failOn")


def _elements(root: Any) -> Iterator[Any]:
    """Yield every grammar element reachable from ``root`` once (iterative: grammars nest deeply)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        element = stack.pop()
        if element is None or id(element) in seen:
            continue
        seen.add(id(element))
        yield element
        for name in _CHILD_ATTRIBUTES:
            child = getattr(element, name, None)
            if isinstance(child, list | tuple):
                stack.extend(child)
            elif child is not None and not isinstance(child, str):
                stack.append(child)


def _cells(function: FunctionType) -> dict[str, Any]:
    """Map a function's free variable names to their closure cells."""
    return dict(zip(function.__code__.co_freevars, function.__closure__ or (), strict=True))


def _is_arity_wrapper(candidate: object) -> bool:
    return isinstance(candidate, FunctionType) and set(candidate.__code__.co_freevars) >= _WRAPPER_CELLS


def _trimmed_count(action: Callable[..., Any]) -> int | None:
    """How many leading arguments pyparsing's search would drop for ``action``, or ``None`` if unknown."""
    try:
        signature = inspect.signature(action)
    except (TypeError, ValueError):  # builtins without a signature: leave them to a lock
        return None
    positional = [
        p
        for p in signature.parameters.values()
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in signature.parameters.values()):
        return 0
    required = sum(1 for p in positional if p.default is inspect.Parameter.empty)
    taken = min(_ARGS_GIVEN, len(positional))
    if required > taken:
        return None  # pyparsing's search would fail for this action too
    return _ARGS_GIVEN - taken


def _settle_wrapper(wrapper: FunctionType) -> bool:
    """Fix one ``_trim_arity`` wrapper's count; return whether it is settled."""
    cells = _cells(wrapper)
    count = _trimmed_count(cells["func"].cell_contents)
    if count is None:
        # Unknown from the signature: a count already found single-threaded is still right.
        return bool(cells["found_arity"].cell_contents)
    cells["limit"].cell_contents = count
    cells["found_arity"].cell_contents = True
    return True


def _wrappers(action: object, depth: int = 2) -> Iterator[FunctionType]:
    """Yield the ``_trim_arity`` wrappers in a parse action, also one level inside conditions."""
    if _is_arity_wrapper(action):
        assert isinstance(action, FunctionType)
        yield action
        return
    if depth and isinstance(action, FunctionType):
        for cell in action.__closure__ or ():
            try:
                inner = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            yield from _wrappers(inner, depth - 1)


def settle_grammar(*roots: Any) -> bool:
    """Streamline the grammars under ``roots`` and settle every parse action's arity.

    Must run before any other thread parses with these grammars (at import).

    Args:
        roots: Top-level pyparsing elements (for rdflib: ``Query``, ``UpdateUnit``).

    Returns:
        ``True`` when every action's count is settled, so parsing is safe from many
        threads at once; ``False`` when some could not be, and parses must be serialised.
    """
    settled = True
    for root in roots:
        root.streamline()
        for element in _elements(root):
            for action in [*getattr(element, "parseAction", ()), getattr(element, "failAction", None)]:
                for wrapper in _wrappers(action):
                    if not _settle_wrapper(wrapper):
                        _log.warning("could not settle the arity of parse action %r", wrapper.__name__)
                        settled = False
    return settled

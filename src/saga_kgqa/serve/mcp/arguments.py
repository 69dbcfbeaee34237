"""Arguments checked before any tool sees them: text that is not valid Unicode gets a typed refusal.

JSON may carry a lone surrogate (an escaped U+D800); Python decodes it, and it fails later with
raw exception text (pydantic's ``string_unicode`` error with the input echoed, or a UTF-8
encoder's message). :func:`argument_problem` (the MCP server's middleware) refuses such arguments first, naming the
argument and the position, as a tool error the host's model can act on.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from saga_kgqa.text_safety import graph_text


def lone_surrogate(value: Any, path: str = "") -> str | None:
    """Where in ``value`` (a JSON-like value) a lone surrogate sits, as ``name[index]: position N``; else ``None``."""
    if isinstance(value, str):
        for position, ch in enumerate(value):
            if "\ud800" <= ch <= "\udfff":
                return f"{path or 'argument'}: position {position} (U+{ord(ch):04X})"
        return None
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = lone_surrogate(item, f"{path}.{key}" if path else str(key))
        if found is not None:
            return found
    return None


def argument_problem(arguments: Any) -> str | None:
    """The refusal for tool arguments that hold a lone surrogate (naming it, not echoing the text); else ``None``."""
    found = lone_surrogate(arguments)
    if found is None:
        return None
    return f"invalid argument: {found} is a lone surrogate, not a character; send valid Unicode text"


#: Characters of a rejected value a validation refusal may quote (sanitised), and the errors it lists.
ECHO_CHARS = 16
_MAX_ERRORS = 5


def validation_refusal(exc: ValidationError) -> str:
    """A tool error for arguments that fail the tool's schema: each field, its rule, a short sanitised prefix.

    Pydantic's own message quotes the input (its first and last 25 characters), its type and a
    documentation link; here a value is quoted only as its first :data:`ECHO_CHARS` characters
    through the project's sanitiser (:func:`~saga_kgqa.text_safety.graph_text`), and a
    non-string value only by its type.
    """
    parts = []
    for error in exc.errors(include_url=False)[:_MAX_ERRORS]:
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        value = error.get("input")
        if isinstance(value, str):
            shown = graph_text(value[:ECHO_CHARS], ECHO_CHARS + 1) + ("…" if len(value) > ECHO_CHARS else "")
            got = f"got {shown!r}, {len(value)} characters"
        else:
            got = f"got a JSON {type(value).__name__}" if value is not None else "missing"
        parts.append(f"{where}: {graph_text(str(error['msg']), 200)} ({got})")
    more = exc.error_count() - _MAX_ERRORS
    tail = f"; and {more} more" if more > 0 else ""
    return f"invalid argument: {'; '.join(parts)}{tail}. Hint: check the argument against the tool's input schema"

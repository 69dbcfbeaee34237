"""Arguments checked before any tool sees them: text that is not valid Unicode gets a typed refusal.

JSON may carry a lone surrogate (an escaped U+D800); Python decodes it, and it fails later with
raw exception text (pydantic's ``string_unicode`` error with the input echoed, or a UTF-8
encoder's message). :func:`argument_problem` (the MCP server's middleware) refuses such arguments first, naming the
argument and the position, as a tool error the host's model can act on.
"""

from __future__ import annotations

from typing import Any


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

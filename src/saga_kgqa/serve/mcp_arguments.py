"""Arguments checked before any tool sees them: text that is not valid Unicode gets a typed refusal.

JSON may carry a lone surrogate (an escaped U+D800); Python decodes it, and it fails later with
raw exception text (pydantic's ``string_unicode`` error with the input echoed, or a UTF-8
encoder's message). :class:`CheckedFastMCP` refuses such arguments first, naming the
argument and the position, as a tool error the host's model can act on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.types import ContentBlock


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


class CheckedFastMCP(FastMCP):
    """FastMCP whose tool calls refuse arguments holding lone surrogates before validation."""

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Sequence[ContentBlock] | dict[str, Any]:
        """Call a tool, unless an argument is not valid Unicode.

        Raises:
            ToolError: An argument holds a lone surrogate (the message names it; the text is not echoed).
        """
        found = lone_surrogate(arguments)
        if found is not None:
            raise ToolError(f"invalid argument: {found} is a lone surrogate, not a character; send valid Unicode text")
        return await super().call_tool(name, arguments)

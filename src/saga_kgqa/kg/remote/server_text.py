"""An endpoint's own explanation of a failure, as text a model can read: focused, de-HTMLed and cut.

Servers answer a failed query with JSON (QLever), HTML error pages (Virtuoso, proxies) or Java traces
that echo the query (WDQS); the model gets the useful part, at most :data:`SERVER_TEXT_LIMIT` characters.
"""

from __future__ import annotations

import html
import json
import re

#: Server text shown to the model is cut to this many characters (TogoMCP shows 1500).
SERVER_TEXT_LIMIT = 1500

_TAG = re.compile(r"<[^>]*>")
_SCRIPT_OR_STYLE = re.compile(r"<(script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_SPACES = re.compile(r"[ \t\r\f\v]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")


def server_text(body: bytes, content_type: str = "") -> str:
    """The endpoint's own explanation, focused on the useful part and cut for the model.

    QLever's JSON ``exception`` member is taken as is; HTML is reduced to its text; a
    Java trace is started at the ``MalformedQueryException`` (WDQS echoes the whole
    query before it, which would otherwise fill the budget).

    Args:
        body: The response body (any length; only its start is read).
        content_type: The media type, lower-cased.

    Returns:
        At most :data:`SERVER_TEXT_LIMIT` characters.
    """
    text = body[:65536].decode("utf-8", errors="replace").strip()
    if text.startswith("{"):
        text = _json_message(text) or text
    elif "html" in content_type or text[:1] == "<":
        text = _html_to_text(text)
    marker = text.find("MalformedQueryException:")
    if marker > 0:
        text = text[marker:]
    return cut(text, SERVER_TEXT_LIMIT)


def _json_message(text: str) -> str | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, dict):
        for key in ("exception", "message", "error"):
            value = data.get(key)
            if isinstance(value, str):
                return value
    return None


def _html_to_text(text: str) -> str:
    text = _SCRIPT_OR_STYLE.sub(" ", text)
    text = _TAG.sub(" ", text)
    text = html.unescape(text)
    text = _SPACES.sub(" ", text)
    return _BLANK_LINES.sub("\n", text).strip()


def cut(text: str, limit: int) -> str:
    """Return ``text`` cut to ``limit`` characters, marking the cut with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"

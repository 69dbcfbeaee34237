"""Endpoint URLs that carry protocol parameters in their query string.

Operators write URLs such as ``http://host/sparql?default-graph-uri=http://g``.
SPARQLWrapper appends ``?query=...`` to the URL as given, so such a URL became
``...?default-graph-uri=...?query=...``, and Virtuoso answered 400 "does not contain
text of SPARQL query", which read as the model's syntax error. Here the query string is
split off and its parameters travel as protocol parameters beside the query.
"""

from __future__ import annotations

import urllib.parse

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.redaction import redact_url


def split_endpoint_url(url: str) -> tuple[str, list[tuple[str, str]]]:
    """Split an endpoint URL into the URL without its query string and that string's parameters.

    Args:
        url: The configured endpoint URL.

    Returns:
        The bare URL (fragment dropped) and its ``(name, value)`` parameters, in order.

    Raises:
        ConfigurationError: The query string sets ``query`` (or ``update``), which only saga may set.
    """
    parts = urllib.parse.urlsplit(url)
    if not parts.query:
        return urllib.parse.urlunsplit(parts._replace(fragment="")), []
    params = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    reserved = sorted({name for name, _ in params if name in ("query", "update")})
    if reserved:
        raise ConfigurationError(
            f"endpoint URL {redact_url(url)!r} sets {', '.join(reserved)} in its query string; "
            "remove it (saga sends the query)"
        )
    return urllib.parse.urlunsplit(parts._replace(query="", fragment="")), params

"""Credentials in URLs never leave the operator: one redaction for messages, fields, logs and files.

An endpoint URL may carry a secret as user information (``https://user:pw@host/``) or as a
query parameter (``?apikey=…``, ``?token=…``). :func:`redact_url` keeps the scheme, host, port
and path, replaces user information with ``***`` and the value of every query parameter that
is not a SPARQL protocol parameter with ``***``; :func:`redact_text` does the same for every
URL found inside a longer text (an error message, a log line, a coverage note).
"""

from __future__ import annotations

import re
import urllib.parse

#: What a redacted secret reads as.
REDACTED = "***"

# Protocol parameters that name graphs or formats, never credentials; every other value is hidden.
_PUBLIC_PARAMETERS = frozenset({"default-graph-uri", "named-graph-uri", "format", "output", "timeout", "query"})
# A URL inside free text: a scheme, then anything up to whitespace, quotes or angle brackets.
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>`]+")


def redact_url(url: str) -> str:
    """Return ``url`` with its user information and non-protocol query values replaced by ``***``.

    Args:
        url: Any URL (a malformed one is returned with everything after its host hidden).

    Returns:
        The URL safe to show a caller, log or write to a shared file.
    """
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        head = url.split("://", 1)
        return f"{head[0]}://{REDACTED}" if len(head) == 2 else REDACTED
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{host}" + (f":{port}" if port else "")
    query = parts.query
    if query:
        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
        query = "&".join(
            f"{urllib.parse.quote(k, safe='-_.')}="
            + (urllib.parse.quote(v, safe=":/-_.#") if k.casefold() in _PUBLIC_PARAMETERS else REDACTED)
            for k, v in pairs
        )
        if not pairs:  # a bare token (?s3cr3t) is a secret too
            query = REDACTED
    fragment = REDACTED if parts.fragment and "=" in parts.fragment else parts.fragment
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def redact_text(text: str) -> str:
    """Return ``text`` with every URL in it passed through :func:`redact_url`."""
    return _URL_IN_TEXT.sub(lambda match: redact_url(match.group(0)), text)

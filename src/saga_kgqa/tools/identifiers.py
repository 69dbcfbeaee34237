"""Turning a model's tool argument into an IRI: ``<iri>``, a prefixed name, or a bare absolute IRI.

Anything else (a quoted literal, free text, a blank node, an unknown prefix) is a
:class:`~saga_kgqa.errors.ToolInputError` whose message says what to pass instead, so
the model can correct its call rather than receive an empty neighbourhood.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from saga_kgqa.errors import QueryRejected, ToolInputError
from saga_kgqa.kg.guard.sparql_terms import iri, unescape_local_name
from saga_kgqa.text_safety import graph_text

#: Longest argument accepted; real IRIs are far shorter.
MAX_ARGUMENT_CHARS = 2000
# IRI schemes accepted without "//" (urn:isbn:..., mailto:...); other "x:y" must be a known prefix.
_OPAQUE_SCHEMES = frozenset({"urn", "mailto", "tag", "tel", "did", "doi", "info"})
_PREFIXED = re.compile(r"([A-Za-z][A-Za-z0-9_\-.]*)?:(\S*)")
# One wording for every graph: a declared prefix can have an odd name to show as an example.
_EXAMPLE = "<http://…> or prefix:name"
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_TRAILING_NUMBER = re.compile(r"(.*?)(\d+)")


def id_number_order(ident: str) -> tuple[str, int, str]:
    """Sort key putting ids that end in a number in numeric order (``P17`` before ``P106``).

    Wikidata's small property ids are its old, common ones, so listing them first shows
    the likeliest useful ones (as SPINACH does). Ids without a trailing number sort by text.
    """
    match = _TRAILING_NUMBER.fullmatch(ident)
    if match is None:
        return (ident, -1, ident)
    return (match.group(1), int(match.group(2)), ident)


def resolve_iri(argument: str, prefixes: Mapping[str, str], *, role: str = "entity") -> str:
    """Return the full IRI a tool argument names.

    Args:
        argument: What the model passed: ``<http://…>``, ``pv:memberOf`` or ``http://…``.
        prefixes: The prefixes shown to the model (the graph's profile and declared ones).
        role: What the argument is (``entity``, ``property``), used in error messages.

    Returns:
        The absolute IRI, safe to place inside ``<…>`` in a template query.

    Raises:
        ToolInputError: The argument is empty, text or a literal, a blank node, uses an
            unknown prefix, or is not a usable IRI.
    """
    raw = argument.strip()
    example = _EXAMPLE
    if not raw:
        raise ToolInputError(f"the {role} argument is empty; pass an IRI such as {example}")
    if len(raw) > MAX_ARGUMENT_CHARS:
        raise ToolInputError(f"the {role} argument is {len(raw)} characters long; pass one IRI such as {example}")
    shown = graph_text(raw, 80)
    if raw[0] in "\"'" or _NUMBER.fullmatch(raw) or raw.lower() in ("true", "false"):
        raise ToolInputError(
            f"{shown} is a literal value, not an {role}; pass an IRI such as {example}, "
            "or use search to find the id of a name"
        )
    if raw.startswith("_:"):
        raise ToolInputError(f"{shown} is a blank node, which has no stable id; look up the resource that links to it")
    if raw.startswith("<") and raw.endswith(">"):
        candidate = raw[1:-1].strip()
    else:
        candidate = _expand(raw, prefixes, role=role, shown=shown, example=example)
    try:
        iri(candidate)
    except QueryRejected:
        raise ToolInputError(f"{shown} is not a usable IRI; pass one such as {example}") from None
    return candidate


def _expand(raw: str, prefixes: Mapping[str, str], *, role: str, shown: str, example: str) -> str:
    match = _PREFIXED.fullmatch(raw)
    if match is None or any(ch.isspace() for ch in raw):
        raise ToolInputError(
            f"{shown} looks like text, not an {role} id; use search to find its id, then pass it (e.g. {example})"
        )
    prefix, local = match.group(1) or "", match.group(2)
    if local.startswith("//") or prefix.lower() in _OPAQUE_SCHEMES:
        return raw
    if prefix in prefixes:
        return prefixes[prefix] + unescape_local_name(local)
    known = ", ".join(sorted(f"{name}:" for name in prefixes)[:20]) or "none"
    raise ToolInputError(f"unknown prefix {graph_text(prefix, 40)!r} in {shown}; known prefixes: {known}")

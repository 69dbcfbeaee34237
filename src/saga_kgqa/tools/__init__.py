"""Knowledge-graph tools (search, lookup, property examples, execute, stop) as plain functions.

Rooms: ``search`` (name indexes), ``lookup`` (types, kept and hidden properties), ``execute``
(type check, run, diagnosis, observations); beside them what all tools share: the context, the
one toolbox over a graph and its per-run views (``toolbox``), bounded graph reads, typed results,
rendering and text safety.

Names load on first use (PEP 562): importing one tool's module (``tools.lookup.hiding``, say)
must not pull the execute path and rdflib's SPARQL parser in with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from saga_kgqa.lazy_names import lazy_names

if TYPE_CHECKING:
    from saga_kgqa.tools.context import ToolCaps
    from saga_kgqa.tools.execute.tool import ExecuteOutcome, ExecuteSettings, execute
    from saga_kgqa.tools.render import render_result_table
    from saga_kgqa.tools.render_observations import TextCaps
    from saga_kgqa.tools.results import (
        Example,
        HiddenProperty,
        KeptProperty,
        LookupResult,
        PropertyExamplesResult,
        PropertyInfo,
        Ref,
        SearchHit,
        SearchResult,
        ToolResult,
        Value,
    )

_HOMES = {
    "Example": "results",
    "ExecuteOutcome": "execute.tool",
    "ExecuteSettings": "execute.tool",
    "HiddenProperty": "results",
    "KeptProperty": "results",
    "LookupResult": "results",
    "PropertyExamplesResult": "results",
    "PropertyInfo": "results",
    "Ref": "results",
    "SearchHit": "results",
    "SearchResult": "results",
    "TextCaps": "render_observations",
    "ToolCaps": "context",
    "ToolResult": "results",
    "Value": "results",
    "execute": "execute.tool",
    "render_result_table": "render",
}

__all__ = [
    "Example",
    "ExecuteOutcome",
    "ExecuteSettings",
    "HiddenProperty",
    "KeptProperty",
    "LookupResult",
    "PropertyExamplesResult",
    "PropertyInfo",
    "Ref",
    "SearchHit",
    "SearchResult",
    "TextCaps",
    "ToolCaps",
    "ToolResult",
    "Value",
    "execute",
    "render_result_table",
]


__getattr__ = lazy_names(__name__, {name: f".{home}" for name, home in _HOMES.items()}, globals())

"""Knowledge-graph tools (search, lookup, property examples, execute, stop) as plain functions.

Rooms: ``search`` (name indexes), ``lookup`` (types, kept and hidden properties), ``execute``
(type check, run, diagnosis, observations); beside them what all tools share: the context, the
toolkit, bounded graph reads, typed results, rendering and text safety.
"""

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
from saga_kgqa.tools.toolkit import GroundingToolkit

__all__ = [
    "Example",
    "ExecuteOutcome",
    "ExecuteSettings",
    "GroundingToolkit",
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

"""A compact ``tools/list``: the tools' JSON schemas without what only repeats their names.

Pydantic gives every schema and property a ``title`` derived from its name, and every output
model its docstring as a description: most of a 50 KB listing a host pays for on each
connection (and many put into the model's context). The output schemas lose both (a host
validates structured content with them; the input schemas and tool descriptions carry the
wording the model reads); the input schemas lose the titles only.
"""

from __future__ import annotations

from typing import Any

_NESTED_MAPS = ("properties", "$defs", "patternProperties")
_NESTED_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_NESTED_ONE = ("items", "additionalProperties", "not")


def compact_schema(schema: Any, *, descriptions: bool) -> Any:
    """``schema`` without ``title`` keys (and without ``description`` keys unless ``descriptions``)."""
    if not isinstance(schema, dict):
        return schema
    dropped = {"title"} if descriptions else {"title", "description"}
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in dropped and isinstance(value, str):
            continue
        if key in _NESTED_MAPS and isinstance(value, dict):
            out[key] = {name: compact_schema(sub, descriptions=descriptions) for name, sub in value.items()}
        elif key in _NESTED_LISTS and isinstance(value, list):
            out[key] = [compact_schema(sub, descriptions=descriptions) for sub in value]
        elif key in _NESTED_ONE:
            out[key] = compact_schema(value, descriptions=descriptions)
        else:
            out[key] = value
    return out

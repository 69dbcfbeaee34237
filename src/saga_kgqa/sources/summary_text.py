"""The model's view of a source summary: every class kept, detail shortened before any class is dropped.

A summary that does not fit its cap is rendered again at the next, shorter level of detail:
fewer examples, then no examples or example queries, then each class's properties on one
line by name, then names only up to a few per class. Classes are dropped only when even the
shortest level does not fit, and then the last (least instantiated) ones go. Whatever was
shortened or dropped is named, with the query that shows it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from saga_kgqa.text_safety import cap_block, graph_text

if TYPE_CHECKING:
    from saga_kgqa.sources.summary_model import ClassSummary, PropertyLine, SourceSummary

_PROPERTIES_SHOWN = 12
#: Property names per class at the shortest level.
_NAMES_SHOWN = 6
_CLASS_QUERY = "SELECT ?c (COUNT(?s) AS ?n) WHERE { ?s a ?c } GROUP BY ?c ORDER BY DESC(?n)"


def _property_query(class_id: str) -> str:
    return f"SELECT ?p (COUNT(?s) AS ?n) (SAMPLE(?o) AS ?example) WHERE {{ ?s a {class_id} ; ?p ?o }} GROUP BY ?p"


def _full(cls: ClassSummary, examples: int, types: int, queries: bool) -> list[str]:
    lines = []
    for prop in cls.properties[:_PROPERTIES_SHOWN]:
        lines.append("  " + _property(prop, examples=examples, types=types, kinds=True))
    if len(cls.properties) > _PROPERTIES_SHOWN:
        # The rest by name: a property the summary never names is one a model will not use.
        lines.append(f"  also: {', '.join(p.property for p in cls.properties[_PROPERTIES_SHOWN:])}")
    if queries and cls.example_query:
        lines.append(f"  example ({cls.example_rows} rows): {cls.example_query}")
    return lines


def _property(prop: PropertyLine, *, examples: int, types: int, kinds: bool) -> str:
    text = prop.property
    if kinds:
        text += " [" + ",".join(f"{k}:{n}" for k, n in prop.kinds.items()) + "]"
    if types and prop.types:
        text += f" -> {', '.join(prop.types[:types])}"
    if examples and prop.examples:
        text += f" e.g. {'; '.join(prop.examples[:examples])}"
    return text


def _grouped(cls: ClassSummary, limit: int | None) -> list[str]:
    props = cls.properties if limit is None else cls.properties[:limit]
    if not props:
        return []
    names = ", ".join(_property(p, examples=0, types=1 if limit is None else 0, kinds=False) for p in props)
    more = len(cls.properties) - len(props)
    return [f"  properties: {names}" + (f" (+{more} more)" if more else "")]


#: Levels of detail, longest first: how one class's body is written, and what that leaves out.
_LEVELS: tuple[tuple[Callable[[ClassSummary], list[str]], str], ...] = (
    (lambda c: _full(c, 2, 3, True), ""),
    (lambda c: _full(c, 1, 1, True), "examples and object types beyond the first"),
    (lambda c: _full(c, 0, 1, False), "examples and example queries"),
    (lambda c: _grouped(c, None), "examples, example queries, object kinds and counts"),
    (lambda c: _grouped(c, _NAMES_SHOWN), f"every detail but {_NAMES_SHOWN} property names per class"),
)


def _head(summary: SourceSummary) -> list[str]:
    lines = [
        f"source {summary.source}: {graph_text(summary.title)}",
        f"  {graph_text(summary.description, 400)}",
        f"  schema for type checks: {'declared' if summary.declared_schema else 'surveyed (sampled)'}; "
        f"surveyed {summary.built_at}",
    ]
    lines.extend(f"  {graph_text(line, 600)}" for line in summary.ontology)
    if summary.graphs:
        lines.append(f"  queries must use the named graphs: {', '.join(summary.graphs)}")
    elif summary.named_graphs:
        lines.append(f"  named graphs: {', '.join(summary.named_graphs[:10])}")
    # Coverage first: a cut summary must still say that absence here is not absence in the graph.
    lines.extend(f"coverage: {graph_text(line, 300)}" for line in summary.coverage)
    return lines


def _class_line(cls: ClassSummary) -> str:
    where = f" in {', '.join(cls.graphs)}" if cls.graphs else ""
    return f"class {cls.id} ({cls.instances} instances{where})"


def _render(summary: SourceSummary, body: Callable[[ClassSummary], list[str]], classes: int, left_out: str) -> str:
    lines = _head(summary)
    if left_out:
        example = summary.classes[0].id if summary.classes else "<class>"
        lines.append(f"left out: {left_out}; a class's full detail: execute {_property_query(example)}")
    dropped = len(summary.classes) - classes
    if dropped:
        lines.append(f"{dropped} classes left out (the least instantiated); list every class: execute {_CLASS_QUERY}")
    for cls in summary.classes[:classes]:
        lines.append(_class_line(cls))
        lines.extend(body(cls))
    return "\n".join(lines)


def render_summary(summary: SourceSummary, max_chars: int) -> str:
    """The summary at the longest level of detail that fits ``max_chars``, every class kept if any level fits."""
    for body, left_out in _LEVELS:
        text = _render(summary, body, len(summary.classes), left_out)
        if len(text) <= max_chars:
            return text
    body, left_out = _LEVELS[-1]
    classes = len(summary.classes)
    while classes > 1:
        classes -= 1
        text = _render(summary, body, classes, left_out)
        if len(text) <= max_chars:
            return text
    return cap_block(_render(summary, body, classes, left_out), max_chars)

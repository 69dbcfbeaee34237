"""A capped, escaped table of a query result, as the execute tool shows it to a model.

Every cell is graph text and passes :mod:`saga_kgqa.tools.text_safety`. IRIs are
shortened with the query's prefixes; numbers and booleans are shown bare, strings quoted.
"""

from __future__ import annotations

from collections.abc import Mapping

from saga_kgqa.kg.algebra_text import AlgebraWriter
from saga_kgqa.kg.result import QueryResult, Term
from saga_kgqa.tools.text_safety import graph_text, quoted

_XSD = "http://www.w3.org/2001/XMLSchema#"
_BARE_DATATYPES = frozenset(
    _XSD + name for name in ("integer", "int", "long", "short", "decimal", "double", "float", "boolean")
)


def display_writer(prefixes: Mapping[str, str]) -> AlgebraWriter:
    """A writer for showing query parts and IRIs to a model: short, and cleaned term by term."""
    return AlgebraWriter(prefixes, clean=graph_text)


def show_iri(value: str, prefixes: Mapping[str, str]) -> str:
    """An IRI as a model sees it: ``prefix:local`` when a prefix covers it, else ``<iri>``, cleaned."""
    return display_writer(prefixes).iri(value)


def render_cell(term: Term, *, max_chars: int, writer: AlgebraWriter) -> str:
    """One result value made safe and short for a model."""
    if term.kind == "uri":
        return writer.iri(term.value) if len(term.value) <= max_chars else "<" + graph_text(term.value, max_chars) + ">"
    if term.kind == "literal":
        if term.datatype in _BARE_DATATYPES:
            return graph_text(term.value, max_chars)
        text = quoted(term.value, max_chars)
        if term.lang:
            return f"{text}@{graph_text(term.lang, 20)}"
        if term.datatype:
            return f"{text}^^{writer.iri(term.datatype)}"
        return text
    if term.kind == "bnode":
        return "_:" + graph_text(term.value, 40)
    return graph_text(term.value, max_chars)


def render_result_table(result: QueryResult, *, max_rows: int, max_cell_chars: int, prefixes: Mapping[str, str]) -> str:
    """Render a result as a Markdown table of at most ``max_rows`` rows (ASK: ``true``/``false``).

    Args:
        result: The query result.
        max_rows: Rows shown; the caller says how many there were in all.
        max_cell_chars: Cap of each cell.
        prefixes: Prefix → namespace used to shorten IRIs.

    Returns:
        The table (no trailing newline); empty for a result without rows.
    """
    if result.form == "ASK":
        return "true" if result.boolean else "false"
    if not result.rows:
        return ""
    variables = result.variables or sorted({name for row in result.rows for name in row})
    lines = [
        "| " + " | ".join(f"?{graph_text(v, 40)}" for v in variables) + " |",
        "|" + "---|" * len(variables),
    ]
    writer = display_writer(prefixes)
    for row in result.rows[:max_rows]:
        cells = [
            render_cell(row[v], max_chars=max_cell_chars, writer=writer).replace("|", "\\|") if v in row else ""
            for v in variables
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)

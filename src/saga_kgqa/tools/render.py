"""The one rendering path from graph data to text a model reads: compact, capped, escaped.

Every IRI, literal, label and server note shown to a model is rendered here and passes
through :mod:`saga_kgqa.text_safety` (docs/faults.md §5, rows D1-D2). Whole
observations are then cut to a byte cap by :func:`cap_bytes`, so one hostile value can
neither fake structure nor flood the context.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

from saga_kgqa.kg.core.result import QueryResult, Term
from saga_kgqa.text_safety import graph_text, quoted, stored_literal

_XSD = "http://www.w3.org/2001/XMLSchema#"
#: SPARQL's bare literal forms (grammar rules INTEGER, DECIMAL, DOUBLE, BooleanLiteral): a value is shown
#: bare only when its lexical form *is* that form, so the pasted text is the same term again
#: (``"700"^^xsd:double`` must not become the integer ``700``, docs/faults.md N3).
_BARE_FORMS = {
    _XSD + "integer": re.compile(r"[+-]?[0-9]+"),
    _XSD + "decimal": re.compile(r"[+-]?[0-9]*\.[0-9]+"),
    _XSD + "double": re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)[eE][+-]?[0-9]+"),
    _XSD + "boolean": re.compile(r"true|false"),
}
# A conservative PN_LOCAL: letters, digits, '_', '-', '.', and %XX escapes; no trailing '.'.
# Anything else stays a full <IRI>, so every compact id we show parses as a prefixed name.
_LOCAL_NAME = re.compile(r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:[A-Za-z0-9_.\-]|%[0-9A-Fa-f]{2})*")
_PREFIX_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_\-.]*")


def compact_iri(iri: str, prefixes: Mapping[str, str]) -> str:
    """Shorten an IRI with the longest matching prefix, or return it as ``<iri>``.

    The result is always valid SPARQL: a prefixed name whose local part needs no
    escaping, or the full IRI in angle brackets. The IRI is *not* made model-safe here;
    callers pass the result through :func:`graph_text` (or use :func:`iri_text`).
    A :class:`PrefixIndex` gives the same result without a pass over every prefix.

    Args:
        iri: The full IRI.
        prefixes: Prefix name to namespace IRI.
    """
    if isinstance(prefixes, PrefixIndex):
        return prefixes.compact(iri)
    best = ""
    best_length = 0
    for name, namespace in prefixes.items():
        length = len(namespace)
        if length > best_length and iri.startswith(namespace) and _PREFIX_NAME.fullmatch(name):
            local = iri[length:]
            if _LOCAL_NAME.fullmatch(local) and not local.endswith("."):
                best, best_length = f"{name}:{local}", length
    return best or f"<{iri}>"


class PrefixIndex(Mapping[str, str]):
    """Prefixes read once for many IRIs: :func:`compact_iri` over it looks up namespaces by length.

    Code that shortens many IRIs with one mapping (an answer's evidence, the answer-type
    prompt's classes) builds one; it is a read-only mapping, so it goes wherever the prefixes
    went. The result is :func:`compact_iri`'s over the plain mapping: the longest namespace that
    leaves a valid local name, the first usable prefix name of a namespace.
    """

    __slots__ = ("_lengths", "_names", "_prefixes")

    def __init__(self, prefixes: Mapping[str, str]) -> None:
        """Copy ``prefixes`` and index its usable namespaces."""
        self._prefixes = dict(prefixes)
        names: dict[str, str] = {}
        for name, namespace in self._prefixes.items():
            if namespace and namespace not in names and _PREFIX_NAME.fullmatch(name):
                names[namespace] = name
        self._names = names
        self._lengths = sorted({len(namespace) for namespace in names}, reverse=True)

    def compact(self, iri: str) -> str:
        """The compact id of ``iri`` (see :func:`compact_iri`)."""
        names = self._names
        for length in self._lengths:
            name = names.get(iri[:length])
            if name is not None:
                local = iri[length:]
                if _LOCAL_NAME.fullmatch(local) and not local.endswith("."):
                    return f"{name}:{local}"
        return f"<{iri}>"

    def __getitem__(self, key: str) -> str:
        return self._prefixes[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._prefixes)

    def __len__(self) -> int:
        return len(self._prefixes)


def iri_text(iri: str, prefixes: Mapping[str, str], cap: int = 120) -> str:
    """Return the compact form of an IRI made safe to show (capped, invisible characters removed)."""
    return id_text(compact_iri(iri, prefixes), cap)


def id_text(ident: str, cap: int = 120) -> str:
    """Make an id from :func:`compact_iri` safe to show.

    A full IRI keeps its angle brackets outside the cleaning, so the tag defanging of
    :func:`graph_text` never rewrites ``<http://…>`` itself; brackets inside are dropped.
    """
    if ident.startswith("<") and ident.endswith(">"):
        return "<" + graph_text(ident[1:-1].replace("<", "").replace(">", ""), cap) + ">"
    return graph_text(ident, cap)


def labelled(iri: str, label: str | None, prefixes: Mapping[str, str], *, label_cap: int = 80) -> str:
    """Render ``Label (id)`` when a label is known and says more than the id, else just the id."""
    ident = iri_text(iri, prefixes)
    if not label:
        return ident
    text = graph_text(label, label_cap)
    if not text or _normalise(text) == _normalise(_local_part(ident)):
        return ident
    return f"{quoted(label, label_cap)} ({ident})"


def literal_text(value: str, *, datatype: str | None, lang: str | None, datatype_id: str | None, cap: int) -> str:
    """Render a literal as SPARQL term syntax: quoted, capped, with its language tag or datatype id.

    A number or boolean is shown bare only when its lexical form is SPARQL's bare form of
    that datatype (``700`` for an integer, ``7.0E2`` for a double); otherwise it keeps its
    quotes and datatype, so a model that copies it writes the same term.

    Args:
        value: The lexical form.
        datatype: The datatype IRI (``None`` for plain and language strings).
        lang: The language tag.
        datatype_id: The datatype as shown (compact id or ``<iri>``), already rendered.
        cap: Characters kept of the lexical form.
    """
    form = _BARE_FORMS.get(datatype or "")
    if form is not None and len(value) <= cap and form.fullmatch(value):
        return value
    text = stored_literal(value, cap)
    if lang:
        return f"{text}@{graph_text(lang, 20)}"
    if datatype:
        return f"{text}^^{datatype_id or graph_text(datatype, 120)}"
    return text


def term_text(
    term: Term,
    prefixes: Mapping[str, str],
    *,
    cap: int = 80,
    labels: Mapping[str, str] | None = None,
) -> str:
    """Render any result term for a model: IRIs compact (with a label when given), literals quoted."""
    if term.kind == "uri":
        label = labels.get(term.value) if labels else None
        return labelled(term.value, label, prefixes, label_cap=cap) if label else iri_text(term.value, prefixes, cap)
    if term.kind == "literal":
        datatype_id = iri_text(term.datatype, prefixes) if term.datatype else None
        return literal_text(term.value, datatype=term.datatype, lang=term.lang, datatype_id=datatype_id, cap=cap)
    if term.kind == "bnode":
        return graph_text(f"_:{term.value}", cap)
    return graph_text(term.value, cap)


def names_list(items: Iterable[str], limit: int) -> str:
    """Join already-rendered names with commas, saying how many more were left out."""
    shown = list(items)
    more = len(shown) - limit
    text = ", ".join(shown[:limit])
    return f"{text}, … (+{more} more)" if more > 0 else text


def cap_bytes(text: str, max_bytes: int) -> str:
    """Cut a multi-line observation so its UTF-8 encoding fits in ``max_bytes``, saying so.

    Cuts at a line boundary where one exists, and never inside a character.
    """
    encoded = text.encode("utf-8")
    if len(encoded) <= max_bytes:
        return text
    note_room = 64
    head = encoded[: max(max_bytes - note_room, 0)].decode("utf-8", errors="ignore")
    if "\n" in head:
        head = head.rsplit("\n", 1)[0]
    cut = len(encoded) - len(head.encode("utf-8"))
    return f"{head}\n[… {cut} more bytes cut]"


def render_result_table(
    result: QueryResult,
    *,
    max_rows: int,
    max_cell_chars: int,
    prefixes: Mapping[str, str],
    labels: Mapping[str, str] | None = None,
) -> str:
    """Render a query result as a small table a model can read.

    The first line gives the true row count (or a lower bound when one of our caps cut
    the result) and how many rows are shown; notes at the end say when the result was
    truncated or the endpoint reported it incomplete. Cells are capped and escaped.

    Args:
        result: The query result.
        max_rows: Rows shown at most.
        max_cell_chars: Characters per cell at most.
        prefixes: Prefixes used to shorten IRIs.
        labels: Optional labels of IRIs, shown as ``"Label" (id)``.

    Returns:
        The table as text (no trailing newline).
    """
    lines: list[str] = []
    if result.form == "ASK":
        lines.append(f"Result (ASK): {'true' if result.boolean else 'false'}")
    else:
        lines.extend(_table_lines(result, max_rows, max_cell_chars, prefixes, labels))
    if result.truncated:
        lines.append(
            f"Note: the result was cut short by a row or size cap; the true row count is at least {len(result.rows)}."
        )
    if not result.complete:
        lines.append("Note: the endpoint reported a partial result; rows may be missing and counts may be wrong.")
    lines.extend(f"Note: {graph_text(note, 300)}" for note in result.notes[:5])
    return "\n".join(lines)


def _table_lines(
    result: QueryResult,
    max_rows: int,
    max_cell_chars: int,
    prefixes: Mapping[str, str],
    labels: Mapping[str, str] | None,
) -> list[str]:
    columns = list(result.variables) or sorted({name for row in result.rows for name in row})
    header = [graph_text(f"?{name}", 60) for name in columns]
    total = len(result.rows)
    count = f"at least {total}" if result.truncated else str(total)
    if total == 0:
        return [f"Result: 0 rows (empty). Columns: {' '.join(header) or '(none)'}"]
    shown = result.rows[: max(max_rows, 0)]
    noun = "row" if total == 1 and not result.truncated else "rows"
    lines = [f"Result: {count} {noun}, showing {'all' if len(shown) == total else f'the first {len(shown)}'}."]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(columns))
    for row in shown:
        cells = [
            _cell(term_text(row[name], prefixes, cap=max_cell_chars, labels=labels)) if name in row else ""
            for name in columns
        ]
        lines.append("| " + " | ".join(cells) + " |")
    if len(shown) < total:
        lines.append(f"({total - len(shown)} more rows not shown.)")
    return lines


def _cell(text: str) -> str:
    # A pipe inside a value must not open a new column.
    return text.replace("|", "\\|")


def _local_part(ident: str) -> str:
    return ident.rsplit(":", 1)[-1] if not ident.startswith("<") else re.split(r"[/#]", ident.strip("<>"))[-1]


def _normalise(text: str) -> str:
    return re.sub(r"[\s_\-]+", "", text).casefold()

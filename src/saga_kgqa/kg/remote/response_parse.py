"""Turning a result body into a :class:`QueryResult`, including a body our byte cap cut short.

A body cut at the byte cap is not valid JSON, so ``json.loads`` cannot read it. Rather
than throw the answer away, :func:`parse_solutions` walks the document's top two levels
itself and hands each binding to the C JSON decoder (``raw_decode``) one at a time.
On a complete body that walk is a strict parser: anything malformed, or anything but a
SPARQL JSON results document of the expected form, raises ``ValueError``. On a
truncated prefix it keeps every binding that decoded completely before the cut and
stops at the first one that does not (the cut one), so no partial term ever reaches a
row. Memory stays bounded by the bytes read plus the rows kept: bindings past the row
cap are decoded one at a time and dropped.

A complete body of at most :data:`WHOLE_PARSE_BYTES` is read with one ``json.loads`` and
checked for the same form instead (the walk's per-value overhead was most of saga's
client-side cost on a loopback Virtuoso); past that size the walk keeps memory bounded.

Graph answers (CONSTRUCT, DESCRIBE) are read with pyoxigraph's streaming parser,
which yields triples until it meets the cut.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any

import pyoxigraph as ox

from saga_kgqa.kg.core.result import QueryForm, QueryResult, Row, Term
from saga_kgqa.kg.embedded.oxigraph_terms import CONSTRUCT_VARIABLES, to_term

#: Complete bodies up to this size are decoded whole; the parsed document costs a few
#: times its size in memory, which is small at this size.
WHOLE_PARSE_BYTES = 1024 * 1024
_DECODER = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_GRAPH_FORMATS = {
    "application/n-triples": ox.RdfFormat.N_TRIPLES,
    "text/plain": ox.RdfFormat.N_TRIPLES,
    "text/turtle": ox.RdfFormat.TURTLE,
    "application/x-turtle": ox.RdfFormat.TURTLE,
}


class _PrefixEnds(Exception):
    """The truncated prefix ends inside the value being read."""


class _Cursor:
    """A position in the decoded body, reading JSON values with the C decoder."""

    def __init__(self, text: str, *, complete: bool) -> None:
        self.text = text
        self.pos = 0
        self.complete = complete

    def peek(self) -> str:
        self.pos = _WHITESPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]  # always matches
        if self.pos >= len(self.text):
            if self.complete:
                raise ValueError("the JSON document ends early")
            raise _PrefixEnds
        return self.text[self.pos]

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise ValueError(f"expected {char!r} at offset {self.pos} of the JSON document")
        self.pos += 1

    def value(self) -> Any:
        self.peek()
        try:
            value, self.pos = _DECODER.raw_decode(self.text, self.pos)
        except json.JSONDecodeError as error:
            if self.complete:
                raise ValueError(f"invalid JSON: {error}") from error
            raise _PrefixEnds from error
        return value

    def object_keys(self) -> Iterator[str]:
        """Yield the keys of an object; the caller reads each key's value before resuming."""
        self.expect("{")
        if self.peek() == "}":
            self.pos += 1
            return
        while True:
            key = self.value()
            if not isinstance(key, str):
                raise ValueError("a JSON object key is not a string")
            self.expect(":")
            yield key
            separator = self.peek()
            self.pos += 1
            if separator == "}":
                return
            if separator != ",":
                raise ValueError(f"expected ',' or '}}' at offset {self.pos - 1} of the JSON document")

    def array_items(self) -> Iterator[Any]:
        self.expect("[")
        if self.peek() == "]":
            self.pos += 1
            return
        while True:
            yield self.value()
            separator = self.peek()
            self.pos += 1
            if separator == "]":
                return
            if separator != ",":
                raise ValueError(f"expected ',' or ']' at offset {self.pos - 1} of the JSON document")


class _Solutions:
    """What the walk has found so far."""

    def __init__(self, max_rows: int) -> None:
        self.max_rows = max_rows
        self.variables: list[str] | None = None
        self.rows: list[Row] = []
        self.seen_bindings = False
        self.row_capped = False
        self.boolean: bool | None = None

    def add_binding(self, item: Any) -> None:
        if not isinstance(item, dict):
            raise ValueError("a binding is not a JSON object")
        if len(self.rows) >= self.max_rows:
            self.row_capped = True
            return
        self.rows.append({str(name): Term.from_json(term) for name, term in item.items()})

    def add_bindings(self, items: list[Any]) -> None:
        """Add a whole decoded ``bindings`` array (the rows past the cap are only checked)."""
        kept = items[: max(0, self.max_rows - len(self.rows))]
        if len(kept) < len(items):
            self.row_capped = True
        for item in items[len(kept) :]:
            if not isinstance(item, dict):
                raise ValueError("a binding is not a JSON object")
        rows = self.rows
        for item in kept:
            if not isinstance(item, dict):
                raise ValueError("a binding is not a JSON object")
            rows.append({str(name): _term(term) for name, term in item.items()})


_PLAIN_KINDS = frozenset(("uri", "literal", "bnode"))
_new_tuple = tuple.__new__


def _term(data: Any) -> Term:
    """:meth:`Term.from_json`, with a shortcut for the common ``{"type", "value"}`` term (IRIs, plain strings)."""
    if type(data) is dict and len(data) == 2:
        kind, value = data.get("type"), data.get("value")
        if kind in _PLAIN_KINDS and type(value) is str:
            return _new_tuple(Term, (kind, value, None, None))
    return Term.from_json(data)


def parse_solutions(body: bytes, form: QueryForm, *, max_rows: int, complete: bool) -> QueryResult:
    """Parse a SPARQL 1.1 JSON results body (SELECT or ASK).

    Args:
        body: The bytes read.
        form: ``SELECT`` or ``ASK``; the document must be of that form.
        max_rows: Rows kept; more make the result ``truncated``.
        complete: ``False`` when our byte cap stopped reading: salvage the complete
            bindings of the prefix instead of requiring a whole document.

    Returns:
        The result; ``truncated`` when a cap cut it, with a note saying which.

    Raises:
        ValueError: The body is not a SPARQL JSON result of that form (or, truncated,
            its prefix is not the start of one).
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        # final=False drops a multi-byte character cut in half at the end of a prefix.
        text = decoder.decode(body, final=complete)
    except UnicodeDecodeError as error:
        raise ValueError(f"the body is not UTF-8: {error}") from error
    found = _Solutions(max_rows)
    if complete and len(body) <= WHOLE_PARSE_BYTES:
        _read_whole(text, found)
        return _build(found, form, max_rows=max_rows, complete=complete, bytes_read=len(body))
    cursor = _Cursor(text, complete=complete)
    with contextlib.suppress(_PrefixEnds):  # a truncated prefix ends somewhere: keep what came before
        _walk_document(cursor, found)
    if complete and cursor.pos != len(text.rstrip()):
        raise ValueError("unexpected data after the JSON document")
    return _build(found, form, max_rows=max_rows, complete=complete, bytes_read=len(body))


def _read_whole(text: str, found: _Solutions) -> None:
    """Decode a complete document at once; the same checks as the walk."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"invalid JSON: {error}") from error
    if not isinstance(document, dict):
        raise ValueError("expected '{' at offset 0 of the JSON document")
    if "head" in document:
        head = document["head"]
        variables = head.get("vars", []) if isinstance(head, dict) else None
        if not isinstance(variables, list) or not all(isinstance(v, str) for v in variables):
            raise ValueError("the result 'head' has no list of variable names")
        found.variables = variables
    results = document.get("results")
    if "results" in document:
        if not isinstance(results, dict):
            raise ValueError("expected '{' for the JSON document's 'results'")
        if "bindings" in results:
            bindings = results["bindings"]
            if not isinstance(bindings, list):
                raise ValueError("expected '[' for the JSON document's 'bindings'")
            found.seen_bindings = True
            found.add_bindings(bindings)
    if "boolean" in document:
        if not isinstance(document["boolean"], bool):
            raise ValueError("the ASK result's 'boolean' is not true or false")
        found.boolean = document["boolean"]


def _walk_document(cursor: _Cursor, found: _Solutions) -> None:
    for key in cursor.object_keys():
        if key == "head":
            head = cursor.value()
            variables = head.get("vars", []) if isinstance(head, dict) else None
            if not isinstance(variables, list) or not all(isinstance(v, str) for v in variables):
                raise ValueError("the result 'head' has no list of variable names")
            found.variables = variables
        elif key == "results":
            for inner in cursor.object_keys():
                if inner == "bindings":
                    found.seen_bindings = True
                    for item in cursor.array_items():
                        found.add_binding(item)
                        if found.row_capped and not cursor.complete:
                            return  # a truncated prefix needs no validation past the rows kept
                else:
                    cursor.value()
        elif key == "boolean":
            value = cursor.value()
            if not isinstance(value, bool):
                raise ValueError("the ASK result's 'boolean' is not true or false")
            found.boolean = value
        else:
            cursor.value()


def _build(found: _Solutions, form: QueryForm, *, max_rows: int, complete: bool, bytes_read: int) -> QueryResult:
    if form == "ASK":
        if found.boolean is None:
            raise ValueError("expected an ASK result ('boolean'), got none" + ("" if complete else " before the cut"))
        return QueryResult(form="ASK", boolean=found.boolean)
    if not found.seen_bindings:
        what = "has no 'results' with 'bindings'" if complete else "was cut before any 'bindings'"
        raise ValueError(f"the SELECT result {what}")
    if complete and found.variables is None:
        raise ValueError("the SELECT result has no 'head'")
    variables = found.variables if found.variables is not None else _variables_in_rows(found.rows)
    notes: list[str] = []
    if found.row_capped:
        also = "" if complete else f"; the response also passed our byte cap of {bytes_read} bytes"
        notes.append(f"stopped after {max_rows} rows (row cap){also}")
    elif not complete:
        notes.append(
            f"the response was cut at our byte cap after {bytes_read} bytes; "
            f"kept the {len(found.rows)} complete rows before the cut"
        )
    return QueryResult(
        form="SELECT",
        variables=variables,
        rows=found.rows,
        truncated=found.row_capped or not complete,
        notes=notes,
    )


def _variables_in_rows(rows: list[Row]) -> list[str]:
    """Variables in first-seen order, when the cut came before the head."""
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)


def parse_graph(body: bytes, media_type: str, form: QueryForm, *, max_rows: int, complete: bool) -> QueryResult:
    """Parse a CONSTRUCT or DESCRIBE answer (N-Triples or Turtle) into subject/predicate/object rows.

    Args:
        body: The bytes read.
        media_type: The response media type, lower-cased, without parameters.
        form: ``CONSTRUCT`` or ``DESCRIBE``.
        max_rows: Triples kept.
        complete: ``False`` when our byte cap stopped reading.

    Raises:
        ValueError: Unsupported media type, or a complete body that is not valid RDF.
    """
    rdf_format = _GRAPH_FORMATS.get(media_type)
    if rdf_format is None:
        raise ValueError(f"expected N-Triples or Turtle for a {form} query, got {media_type or 'no media type'!r}")
    rows: list[Row] = []
    row_capped = False
    try:
        for quad in ox.parse(body, format=rdf_format):
            if len(rows) >= max_rows:
                row_capped = True
                break
            rows.append(
                {"subject": to_term(quad.subject), "predicate": to_term(quad.predicate), "object": to_term(quad.object)}
            )
    except SyntaxError as error:
        if complete:
            raise ValueError(f"the {form} answer is not valid RDF: {error}") from error
        if rdf_format == ox.RdfFormat.TURTLE and rows:
            # A Turtle statement cut at its last term can still parse; drop it to be safe.
            rows.pop()
    notes = [] if complete else [f"the response was cut at our byte cap; kept {len(rows)} complete triples"]
    if row_capped:
        notes.append(f"stopped after {max_rows} triples (row cap)")
    return QueryResult(
        form=form,
        variables=list(CONSTRUCT_VARIABLES),
        rows=rows,
        truncated=row_capped or not complete,
        notes=notes,
    )

"""Where an RDF file's syntax error is, and ``saga load --lenient``'s repair: skip what does not parse, say so.

pyoxigraph names the line and column of a Turtle, TriG or N-Triples error, but not of an
RDF/XML one ("Unexpected text event"): :func:`locate_xml_error` finds it with the standard
library's expat, which reports malformed XML by position, and by walking the RDF/XML
striping finds text where only elements may stand (a stray ``>`` between two ``owl:Class``
elements of a published ontology).

:func:`repair` is the lenient load's one rule: the part that does not parse is blanked out
(the same number of bytes, so every later line and column stays where it was), named in a
:class:`Skipped`, and the file is parsed again; RDF/XML loses the stray text only, the
line-based and Turtle formats the whole line the error is on. A file that still fails
after :data:`MAX_SKIPPED` repairs, or whose error cannot be placed, is refused whole: a
lenient load never loads silently in part.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from pathlib import Path
from xml.parsers import expat

import pyoxigraph as ox

#: Repairs one file may need before it is refused.
MAX_SKIPPED = 100
_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_SHOWN_CHARS = 60
_POSITION = re.compile(r"line (\d+) column (\d+)")


@dataclass(frozen=True, slots=True)
class Skipped:
    """A part of a file a lenient load left out: where (1-based line and column), why, and what."""

    path: Path
    line: int
    column: int
    reason: str
    text: str

    def describe(self) -> str:
        """One line for the person who loaded the file."""
        return f"{self.path}, line {self.line}, column {self.column}: skipped {self.text!r} ({self.reason})"


def error_position(exc: SyntaxError) -> tuple[int, int] | None:
    """The (line, column) pyoxigraph gives a syntax error, if it gives one."""
    if exc.lineno is not None:
        return exc.lineno, exc.offset or 1
    found = _POSITION.search(str(exc))
    return (int(found.group(1)), int(found.group(2))) if found else None


def locate_xml_error(data: bytes) -> tuple[int, int, str, str] | None:
    """The first place an RDF/XML document breaks: (line, 1-based column, reason, text), or ``None``.

    Malformed XML is expat's own error; otherwise non-blank text where the RDF/XML grammar
    allows only elements (inside ``rdf:RDF`` or a node element, outside an XML literal).
    """
    found = stray_xml_text(data, limit=1)
    if found:
        return found[0]
    parser = expat.ParserCreate(namespace_separator=" ")
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        return exc.lineno, exc.offset + 1, expat.errors.messages[exc.code], ""
    return None


def stray_xml_text(data: bytes, *, limit: int) -> list[tuple[int, int, str, str]]:
    """Non-blank text between RDF/XML elements, up to ``limit`` places (expat errors end the walk)."""
    # Unbuffered: expat reports each piece of text (split at line ends) with the position it starts at.
    parser = expat.ParserCreate(namespace_separator=" ")
    # The RDF/XML striping: "root" (rdf:RDF) and "node" elements hold elements only; a
    # "property" element holds its value (text may stand there). Inside an XML literal, anything goes.
    roles: list[str] = []
    literal_depth: list[int] = []
    found: list[tuple[int, int, str, str]] = []

    def start(name: str, attributes: dict[str, str]) -> None:
        if literal_depth:
            literal_depth[-1] += 1
            return
        parse_type = attributes.get(f"{_RDF} parseType")
        if name == f"{_RDF} RDF":
            role = "root"
        elif not roles or roles[-1] in ("root", "property"):
            role = "node"
        else:
            role = "node" if parse_type == "Resource" else "property"
        roles.append(role)
        if role == "property" and parse_type == "Literal":
            literal_depth.append(0)

    def end(_name: str) -> None:
        if literal_depth:
            if literal_depth[-1] > 0:
                literal_depth[-1] -= 1
                return
            literal_depth.pop()
        if roles:
            roles.pop()

    def text(content: str) -> None:
        if literal_depth or not roles or roles[-1] == "property" or not content.strip():
            return
        lead = len(content) - len(content.lstrip())
        line = parser.CurrentLineNumber + content[:lead].count("\n")
        column = (
            (lead - content[:lead].rfind("\n")) if "\n" in content[:lead] else parser.CurrentColumnNumber + 1 + lead
        )
        found.append((line, column, "text between RDF/XML elements", content.strip()[:_SHOWN_CHARS]))
        if len(found) >= limit:
            raise _Enough

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    with contextlib.suppress(_Enough, expat.ExpatError):  # enough found, or malformed XML: what was found stands
        parser.Parse(data, True)
    return found


class _Enough(Exception):
    """Stops the XML walk once enough places were found."""


def repair(path: Path, data: bytes, fmt: ox.RdfFormat) -> tuple[bytes, list[Skipped]]:
    """Blank out what does not parse until the file parses (at most :data:`MAX_SKIPPED` repairs).

    Returns:
        The repaired bytes and what was skipped (empty when the file parsed as it was).

    Raises:
        SyntaxError: An error that cannot be placed, or more than :data:`MAX_SKIPPED` of them;
            its message names the file, line and column where one is known.
    """
    skipped: list[Skipped] = []
    buffer = bytearray(data)
    while True:
        try:
            for _triple in ox.parse(bytes(buffer), format=fmt, lenient=True):
                pass
            return bytes(buffer), skipped
        except SyntaxError as exc:
            if len(skipped) >= MAX_SKIPPED:
                raise SyntaxError(f"{path}: more than {MAX_SKIPPED} parts do not parse; the last: {exc}") from None
            place = _place(buffer, fmt, exc)
            if place is None:
                raise SyntaxError(f"{path}: {exc} (its place in the file could not be found)") from None
            line, column, reason, start, end = place
            shown = bytes(buffer[start:end]).decode("utf-8", "replace").strip()[:_SHOWN_CHARS]
            skipped.append(Skipped(path, line, column, reason, shown))
            buffer[start:end] = _blank(buffer[start:end])


def _place(buffer: bytearray, fmt: ox.RdfFormat, exc: SyntaxError) -> tuple[int, int, str, int, int] | None:
    """(line, column, reason, start byte, end byte) of the part to blank out, or ``None``."""
    if fmt == ox.RdfFormat.RDF_XML:
        stray = stray_xml_text(bytes(buffer), limit=1)
        if not stray:
            return None  # malformed XML: blanking text cannot mend it
        line, column, reason, _text = stray[0]
        start = _offset(buffer, line, column)
        end = start
        while end < len(buffer) and buffer[end : end + 1] != b"<":
            end += 1
        return line, column, reason, start, end
    position = error_position(exc)
    if position is None:
        return None
    line, column = position
    start = _offset(buffer, line, 1)
    end = buffer.find(b"\n", start)
    end = len(buffer) if end < 0 else end
    if start >= end or not bytes(buffer[start:end]).strip():
        return None  # the error is past a line already blanked (a statement cut in two): give up
    return line, column, str(exc.msg if hasattr(exc, "msg") else exc)[:200], start, end


def _offset(buffer: bytearray, line: int, column: int) -> int:
    """The byte offset of a 1-based line and (character) column."""
    start = 0
    for _ in range(line - 1):
        found = buffer.find(b"\n", start)
        if found < 0:
            return len(buffer)
        start = found + 1
    end = buffer.find(b"\n", start)
    text = bytes(buffer[start : len(buffer) if end < 0 else end]).decode("utf-8", "replace")
    return start + len(text[: max(column - 1, 0)].encode("utf-8"))


def _blank(part: bytearray) -> bytes:
    """The same bytes with everything but line breaks made spaces (lines and columns after stay put)."""
    return bytes(b if b in (0x0A, 0x0D) else 0x20 for b in part)

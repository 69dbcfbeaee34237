"""RDF terms in the MCP tools' structured content: each value says what kind of term it is.

A result row's cell is an IRI, a literal (with its datatype or language) or a blank node;
the text observation shows them differently (``<iri>``, ``"lexical"@en``), and so must the
structured content, or a program cannot tell an IRI from a string that looks like one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field

from saga_kgqa.kg.core.result import Term

Kind = Literal["iri", "literal", "bnode", "triple"]
_KINDS: dict[str, Kind] = {"uri": "iri", "literal": "literal", "bnode": "bnode", "triple": "triple"}


class TermOut(BaseModel):
    """One RDF term.

    Attributes:
        kind: ``iri``, ``literal``, ``bnode`` (blank node) or ``triple`` (RDF-star).
        value: The IRI, the lexical form, or the blank node's label.
        datatype: A typed literal's datatype IRI.
        lang: A language-tagged literal's language.
        text: The term as the text observation writes it.
    """

    kind: Kind
    value: str
    datatype: str | None = None
    lang: str | None = None
    text: str = Field(default="", description="The term as the text content shows it.")


def term_out(term: Term) -> TermOut:
    """The structured form of a result term."""
    kind = _KINDS[term.kind]
    if kind == "iri":
        text = f"<{term.value}>"
    elif kind == "bnode":
        text = f"_:{term.value}"
    elif kind == "literal":
        text = term.value
        if term.lang:
            text = f'"{term.value}"@{term.lang}'
        elif term.datatype:
            text = f'"{term.value}"^^<{term.datatype}>'
    else:
        text = term.value
    return TermOut(kind=kind, value=term.value, datatype=term.datatype, lang=term.lang, text=text)


def row_out(row: Mapping[str, Term | None]) -> dict[str, TermOut]:
    """A result row with typed cells (unbound variables left out)."""
    return {var: term_out(term) for var, term in row.items() if term is not None}


def rows_of(answers: dict[str, Any] | None) -> tuple[list[str], list[dict[str, TermOut]], bool | None]:
    """Variables, typed rows and the ASK boolean of a SPARQL JSON result."""
    if not answers:
        return [], [], None
    if "boolean" in answers:
        return [], [], bool(answers["boolean"])
    variables = [str(v) for v in answers.get("head", {}).get("vars", [])]
    bindings = answers.get("results", {}).get("bindings", [])
    rows = [{var: term_out(Term.from_json(cell)) for var, cell in row.items()} for row in bindings]
    return variables, rows, None

"""Typed query results shared by every backend.

A :class:`QueryResult` keeps RDF terms losslessly (datatype and language tag kept,
blank nodes distinguished) and says whether it is complete and whether it was cut
short by one of our caps. It converts to and from the W3C SPARQL 1.1 JSON results
format, which is also what the record/replay cache stores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

TermKind = Literal["uri", "literal", "bnode", "triple"]
QueryForm = Literal["SELECT", "ASK", "CONSTRUCT", "DESCRIBE"]

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


class Term(NamedTuple):
    """One RDF term in a result row.

    A named tuple rather than a dataclass: result rows hold many terms, and building a
    tuple costs half as much, which keeps saga's backend within reach of raw pyoxigraph.

    Attributes:
        kind: ``uri``, ``literal``, ``bnode`` or ``triple`` (RDF-star).
        value: The IRI, the lexical form, the blank node label, or the N-Triples form of a quoted triple.
        datatype: Datatype IRI of a typed literal; ``None`` for plain strings and language strings.
        lang: Language tag of a language-tagged literal.
    """

    kind: TermKind
    value: str
    datatype: str | None = None
    lang: str | None = None

    def to_json(self) -> dict[str, str]:
        """Return the SPARQL 1.1 JSON results form of this term."""
        out: dict[str, str] = {"type": self.kind, "value": self.value}
        if self.datatype is not None:
            out["datatype"] = self.datatype
        if self.lang is not None:
            out["xml:lang"] = self.lang
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Term:
        """Build a term from its SPARQL 1.1 JSON results form.

        Raises:
            ValueError: The mapping is not a valid JSON result term.
        """
        # ``type(...) is dict`` first: the ABC check alone was a fifth of parsing a result.
        if type(data) is not dict and not isinstance(data, Mapping):
            raise ValueError(f"result term is not an object: {data!r}")
        kind = data.get("type")
        value = data.get("value")
        if not isinstance(value, str):
            raise ValueError(f"result term has no string value: {dict(data)!r}")
        if kind == "typed-literal":  # SPARQL 1.0 JSON, still sent by some Virtuoso versions
            kind = "literal"
        if kind not in ("uri", "literal", "bnode", "triple"):
            raise ValueError(f"unknown result term type {kind!r}")
        datatype = data.get("datatype")
        lang = data.get("xml:lang")
        if datatype == XSD_STRING:
            datatype = None
        if lang is not None and datatype == RDF_LANG_STRING:
            datatype = None
        return tuple.__new__(  # the named tuple's own __new__ without its keyword handling
            cls,
            (kind, value, datatype if isinstance(datatype, str) else None, lang if isinstance(lang, str) else None),
        )

    def n3(self) -> str:
        """Return the term in SPARQL/N-Triples syntax (for showing and re-querying)."""
        if self.kind == "uri":
            return f"<{self.value}>"
        if self.kind == "bnode":
            return f"_:{self.value}"
        if self.kind == "triple":
            return self.value
        escaped = self.value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
        if self.lang:
            return f'"{escaped}"@{self.lang}'
        if self.datatype:
            return f'"{escaped}"^^<{self.datatype}>'
        return f'"{escaped}"'


Row = dict[str, Term]


@dataclass(slots=True)
class QueryResult:
    """The answer of a store or endpoint to one query.

    Attributes:
        form: The query form that produced it.
        variables: Projected variable names, in order (empty for ASK).
        rows: One mapping per solution; an unbound variable is simply absent.
        boolean: The answer of an ASK query, else ``None``.
        complete: ``False`` when the store says the answer may be partial
            (for example Virtuoso's "anytime" results); counts may then be wrong.
        truncated: ``True`` when one of our caps (rows or bytes) cut the result short.
        elapsed_s: Wall-clock seconds spent answering, transfer included.
        notes: Human-readable remarks on completeness or truncation.
    """

    form: QueryForm
    variables: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    boolean: bool | None = None
    complete: bool = True
    truncated: bool = False
    elapsed_s: float = 0.0
    notes: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.rows)

    def column(self, variable: str) -> list[Term]:
        """Return the bound values of one variable, in row order."""
        return [row[variable] for row in self.rows if variable in row]

    def to_sparql_json(self) -> dict[str, Any]:
        """Return the result in W3C SPARQL 1.1 JSON results format."""
        if self.form == "ASK":
            return {"head": {}, "boolean": bool(self.boolean)}
        return {
            "head": {"vars": list(self.variables)},
            "results": {"bindings": [{k: v.to_json() for k, v in row.items()} for row in self.rows]},
        }

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dictionary with the result and its metadata."""
        return {
            "form": self.form,
            "complete": self.complete,
            "truncated": self.truncated,
            "elapsed_s": round(self.elapsed_s, 6),
            "notes": list(self.notes),
            "result": self.to_sparql_json(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QueryResult:
        """Rebuild a result from :meth:`to_dict` output.

        Raises:
            ValueError: The mapping is not what :meth:`to_dict` writes.
        """
        form = data.get("form")
        if form not in ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE"):
            raise ValueError(f"unknown query form {form!r}")
        complete, truncated, elapsed, notes = (data.get(k) for k in ("complete", "truncated", "elapsed_s", "notes"))
        if not isinstance(complete, bool) or not isinstance(truncated, bool):
            raise ValueError("'complete' and 'truncated' must be booleans")
        if not isinstance(elapsed, int | float) or isinstance(elapsed, bool):
            raise ValueError("'elapsed_s' must be a number")
        if not isinstance(notes, list) or not all(isinstance(note, str) for note in notes):
            raise ValueError("'notes' must be a list of strings")
        payload = data.get("result")
        if not isinstance(payload, Mapping):
            raise ValueError("'result' must be a SPARQL JSON results object")
        result = cls.from_sparql_json(
            payload, form=form, elapsed_s=float(elapsed), complete=complete, truncated=truncated
        )
        result.notes = list(notes)
        return result

    @classmethod
    def from_sparql_json(
        cls,
        data: Mapping[str, Any],
        *,
        form: QueryForm | None = None,
        elapsed_s: float = 0.0,
        complete: bool = True,
        truncated: bool = False,
    ) -> QueryResult:
        """Parse a W3C SPARQL 1.1 JSON results document.

        Args:
            data: The decoded JSON document.
            form: The expected query form; inferred from the document when ``None``.
            elapsed_s: Time spent obtaining it.
            complete: Whether the server reported a complete answer.
            truncated: Whether one of our caps cut it short.

        Raises:
            ValueError: The document is not a valid SPARQL JSON result of the expected form.
        """
        if not isinstance(data, Mapping):
            raise ValueError("SPARQL JSON result is not an object")
        if "boolean" in data:
            value = data["boolean"]
            if not isinstance(value, bool):
                raise ValueError("ASK result has a non-boolean 'boolean' member")
            if form not in (None, "ASK"):
                raise ValueError(f"expected a {form} result, got a boolean")
            return cls(form="ASK", boolean=value, elapsed_s=elapsed_s, complete=complete, truncated=truncated)
        head = data.get("head")
        results = data.get("results")
        if not isinstance(head, Mapping) or not isinstance(results, Mapping):
            raise ValueError("SPARQL JSON result lacks 'head' or 'results'")
        if form == "ASK":
            raise ValueError("expected an ASK result, got bindings")
        variables = head.get("vars", [])
        bindings = results.get("bindings")
        if not isinstance(variables, list) or not isinstance(bindings, list):
            raise ValueError("SPARQL JSON result has malformed 'vars' or 'bindings'")
        rows: list[Row] = []
        for binding in bindings:
            if not isinstance(binding, Mapping):
                raise ValueError("a binding is not an object")
            rows.append({str(k): Term.from_json(v) for k, v in binding.items()})
        return cls(
            form=form or "SELECT",
            variables=[str(v) for v in variables],
            rows=rows,
            elapsed_s=elapsed_s,
            complete=complete,
            truncated=truncated,
        )

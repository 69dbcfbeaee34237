"""Writing parts of rdflib's SPARQL algebra back as text: escaped for re-querying, or short for display.

The tools take a model's query apart (one triple pattern, one FILTER condition) and
either send a part back to the store as a small probe query or name it in an
observation. :class:`AlgebraWriter` does both. In ``query`` mode every IRI and literal
is re-escaped through :mod:`saga_kgqa.kg.guard.sparql_terms`, so nothing from the algebra can
break out of its term; in display mode IRIs are shortened with the query's prefixes.
Anything the writer does not know raises :class:`AlgebraTextError` instead of guessing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, SequencePath
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.term import BNode, Literal, URIRef, Variable

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.guard.sparql_terms import iri, string_literal, unescape_local_name

Triple = tuple[Any, Any, Any]


_VARIABLE_NAME = re.compile(r"\w+")
# A local name that needs no escaping in a prefixed name (a conservative subset of PN_LOCAL).
_PLAIN_LOCAL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_\-])?")
_ESCAPABLE = re.compile(r"([_~.\-!$&'()*+,;=/?#@%])")

_XSD = "http://www.w3.org/2001/XMLSchema#"
_NEVER = re.compile(r"(?!)")
# Literals whose SPARQL short form (``3``, ``2.5``, ``true``) reads the same as the typed form.
_BARE_LITERAL = {
    _XSD + "integer": re.compile(r"[+-]?[0-9]+"),
    _XSD + "decimal": re.compile(r"[+-]?[0-9]*\.[0-9]+"),
    _XSD + "boolean": re.compile(r"true|false"),
}

# Argument names of rdflib's Builtin_* nodes, in call order (rdflib's parser.py).
_BUILTIN_ARGS = ("arg", "arg1", "arg2", "arg3", "text", "pattern", "replacement", "start", "length", "flags")
_INFIX = {
    "ConditionalOrExpression": "||",
    "ConditionalAndExpression": "&&",
}


class AlgebraTextError(ValueError):
    """A part of the algebra cannot be written back (an unsupported construct or an unsafe term)."""


class AlgebraWriter:
    """Writes terms, property paths, triple patterns and expressions of rdflib's algebra.

    Args:
        prefixes: For display: prefix → namespace used to shorten IRIs. ``None`` writes
            every IRI in full and escaped, ready to be sent to a store.
        clean: For display: applied to every IRI and literal text before it is written
            (the tools pass their text-safety filter, so a pattern is safe to show as is).
    """

    def __init__(self, prefixes: Mapping[str, str] | None = None, *, clean: Callable[[str], str] | None = None) -> None:
        self._display = prefixes is not None
        self._clean = clean or (lambda text: text)
        # Longest namespace first, so ex: does not shadow ex2: sharing its start.
        self._namespaces = sorted((prefixes or {}).items(), key=lambda item: -len(item[1]))
        self._blank_labels: dict[str, str] = {}

    def term(self, term: Any) -> str:
        """Write one RDF term or variable.

        Raises:
            AlgebraTextError: The term is of an unknown kind or cannot be escaped safely.
        """
        if isinstance(term, Variable):
            name = str(term)
            if not _VARIABLE_NAME.fullmatch(name):
                raise AlgebraTextError(f"not a variable name: {name[:40]!r}")
            return f"?{name}"
        if isinstance(term, URIRef):
            return self.iri(str(term))
        if isinstance(term, BNode):
            # Blank nodes in a pattern act as variables scoped to one group; fresh labels
            # keep rdflib's generated ids (which may hold any character) out of the text.
            label = self._blank_labels.setdefault(str(term), f"b{len(self._blank_labels)}")
            return f"_:{label}"
        if isinstance(term, Literal):
            return self._literal(term)
        raise AlgebraTextError(f"cannot write term {term!r}")

    def iri(self, value: str) -> str:
        """Write an IRI from the algebra (``PN_LOCAL_ESC`` backslashes removed first)."""
        value = unescape_local_name(value)
        if self._display:
            for prefix, namespace in self._namespaces:
                local = value[len(namespace) :]
                if value.startswith(namespace) and (not local or _PLAIN_LOCAL.fullmatch(_ESCAPABLE.sub("_", local))):
                    return self._clean(f"{prefix}:{_escape_local(local)}")
            # An IRI holds no angle brackets, so cleaning the inside keeps the brackets meaningful.
            return f"<{self._clean(value)}>"
        try:
            return iri(value)
        except QueryRejected as exc:
            raise AlgebraTextError(exc.message) from None

    def path(self, path: Any) -> str:
        """Write a predicate: an IRI, a variable or a property path.

        Raises:
            AlgebraTextError: The path holds a construct rdflib parsed incompletely
                (an inverse inside a negated property set).
        """
        if isinstance(path, (URIRef, Variable)):
            return self.term(path)
        if isinstance(path, InvPath):
            return f"^{self._path_atom(path.arg)}"
        if isinstance(path, SequencePath):
            return "/".join(self._path_atom(arg) for arg in path.args)
        if isinstance(path, AlternativePath):
            return "|".join(self._path_atom(arg) for arg in path.args)
        if isinstance(path, MulPath):
            return f"{self._path_atom(path.path)}{path.mod}"
        if isinstance(path, NegatedPath):
            members = []
            for arg in path.args:
                if isinstance(arg, URIRef):
                    members.append(self.term(arg))
                elif isinstance(arg, InvPath) and isinstance(arg.arg, URIRef):
                    members.append("^" + self.term(arg.arg))
                else:
                    raise AlgebraTextError("cannot write this negated property set")
            return "!(" + "|".join(members) + ")"
        raise AlgebraTextError(f"cannot write path {path!r}")

    def _path_atom(self, path: Any) -> str:
        text = self.path(path)
        return text if isinstance(path, (URIRef, Variable, NegatedPath)) else f"({text})"

    def triple(self, triple: Triple) -> str:
        """Write one triple pattern as ``s p o`` (without the closing dot)."""
        subject, predicate, obj = triple
        return f"{self.term(subject)} {self.path(predicate)} {self.term(obj)}"

    def triples(self, triples: Iterable[Triple]) -> str:
        """Write triple patterns as a block: ``s p o . s2 p2 o2 .``."""
        return " ".join(f"{self.triple(t)} ." for t in triples)

    def values(self, node: CompValue) -> str:
        """Write an inline-data (``values``) node as ``VALUES (?a ?b) { (x y) (UNDEF z) }``."""
        rows: list[Mapping[Variable, Any]] = list(node.res or [])
        variables = sorted({v for row in rows for v in row}, key=str)
        if not variables:
            raise AlgebraTextError("empty VALUES block")
        head = " ".join(self.term(v) for v in variables)
        body = " ".join(
            "(" + " ".join(self.term(row[v]) if v in row else "UNDEF" for v in variables) + ")" for row in rows
        )
        return f"VALUES ({head}) {{ {body} }}"

    def expression(self, expr: Any) -> str:
        """Write a FILTER expression.

        Raises:
            AlgebraTextError: The expression uses a construct the writer does not cover
                (for example an EXISTS around anything but triple patterns).
        """
        if not isinstance(expr, CompValue):
            if isinstance(expr, (Variable, URIRef, BNode, Literal)):
                return self.term(expr)
            raise AlgebraTextError(f"cannot write expression {expr!r}")
        name = expr.name
        if name in _INFIX:
            parts = [expr.expr, *(expr.other or [])]
            return "(" + f" {_INFIX[name]} ".join(self.expression(part) for part in parts) + ")"
        if name == "RelationalExpression":
            if expr.op in ("IN", "NOT IN"):
                members = ", ".join(self.expression(item) for item in expr.other)
                return f"({self.expression(expr.expr)} {expr.op} ({members}))"
            return f"({self.expression(expr.expr)} {expr.op} {self.expression(expr.other)})"
        if name in ("AdditiveExpression", "MultiplicativeExpression"):
            text = self.expression(expr.expr)
            for op, other in zip(expr.op or [], expr.other or [], strict=True):
                text += f" {op} {self.expression(other)}"
            return f"({text})"
        if name in ("UnaryNot", "UnaryMinus", "UnaryPlus"):
            sign = {"UnaryNot": "!", "UnaryMinus": "-", "UnaryPlus": "+"}[name]
            return f"{sign}{self.expression(expr.expr)}"
        if name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
            keyword = "EXISTS" if name == "Builtin_EXISTS" else "NOT EXISTS"
            # translateQuery stores the translated group as an attribute, beside the parse tree.
            return f"{keyword} {{ {self.triples(_group_triples(getattr(expr, 'graph', None)))} }}"
        if name == "Function":
            if expr.distinct:
                raise AlgebraTextError("cannot write an aggregate")
            args = ", ".join(self.expression(arg) for arg in expr.expr or [])
            return f"{self.iri(str(expr.iri))}({args})"
        if name.startswith("Builtin_"):
            return self._builtin(name.removeprefix("Builtin_"), expr)
        raise AlgebraTextError(f"cannot write expression {name}")

    def _builtin(self, function: str, expr: CompValue) -> str:
        if not re.fullmatch(r"[A-Za-z_0-9]+", function):
            raise AlgebraTextError(f"unknown function {function[:40]!r}")
        args: list[str] = []
        for key in _BUILTIN_ARGS:
            # CompValue.get resolves variables and returns odd values for absent keys.
            value = dict.get(expr, key)
            if value is None:
                continue
            if isinstance(value, list):
                args.extend(self.expression(item) for item in value)
            else:
                args.append(self.expression(value))
        return f"{function}({', '.join(args)})"

    def _literal(self, literal: Literal) -> str:
        lexical = str(literal)
        if self._display:
            datatype = str(literal.datatype or "")
            if _BARE_LITERAL.get(datatype, _NEVER).fullmatch(lexical):
                return lexical
            text = '"' + self._clean(lexical).replace("\\", "\\\\").replace('"', '\\"') + '"'
            if literal.language:
                return f"{text}@{literal.language}"
            if literal.datatype is not None and str(literal.datatype) != _XSD + "string":
                return f"{text}^^{self.iri(str(literal.datatype))}"
            return text
        try:
            text = string_literal(lexical, literal.language)
        except QueryRejected as exc:
            raise AlgebraTextError(exc.message) from None
        if literal.datatype is not None and not literal.language and str(literal.datatype) != _XSD + "string":
            text += "^^" + self.iri(str(literal.datatype))
        return text


def _group_triples(graph: Any) -> list[Triple]:
    """The triples of an EXISTS group made only of triple patterns (rdflib's translated form)."""
    if isinstance(graph, CompValue) and graph.name == "BGP":
        return list(graph.triples)
    if isinstance(graph, CompValue) and graph.name == "Join":
        return _group_triples(graph.p1) + _group_triples(graph.p2)
    raise AlgebraTextError("cannot write an EXISTS group with more than triple patterns")


def _escape_local(local: str) -> str:
    r"""Escape the characters of a local name that a prefixed name needs escaped (``singer\#name``)."""
    return _ESCAPABLE.sub(lambda m: m.group(1) if m.group(1) in "_-" else "\\" + m.group(1), local)


def term_variables(expr: Any) -> set[str]:
    """Every variable name mentioned anywhere in an expression (EXISTS groups included)."""
    found: set[str] = set()
    stack: list[Any] = [expr]
    while stack:
        item = stack.pop()
        if isinstance(item, Variable):
            found.add(str(item))
        elif isinstance(item, CompValue):
            stack.extend(value for key, value in item.items() if key != "_vars")
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found

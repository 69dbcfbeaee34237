"""Conversion between pyoxigraph terms and saga-kgqa's :class:`~saga_kgqa.kg.core.result.Term`."""

from __future__ import annotations

import itertools
import time
from typing import Any

import pyoxigraph as ox

from saga_kgqa.kg.core.result import RDF_LANG_STRING, XSD_STRING, QueryForm, QueryResult, Row, Term

CONSTRUCT_VARIABLES = ["subject", "predicate", "object"]


def to_term(node: Any) -> Term:
    """Convert a pyoxigraph node (IRI, literal, blank node or quoted triple) to a :class:`Term`."""
    if isinstance(node, ox.NamedNode):
        return Term("uri", node.value)
    if isinstance(node, ox.Literal):
        datatype = node.datatype.value
        lang = node.language
        if lang is not None or datatype in (XSD_STRING, RDF_LANG_STRING):
            return Term("literal", node.value, lang=lang)
        return Term("literal", node.value, datatype=datatype)
    if isinstance(node, ox.BlankNode):
        return Term("bnode", node.value)
    if isinstance(node, ox.Triple):
        return Term("triple", str(node))
    raise TypeError(f"unexpected pyoxigraph term {node!r}")


def collect_result(raw: Any, form: QueryForm, max_rows: int, started: float) -> QueryResult:
    """Turn a pyoxigraph query answer into a :class:`QueryResult`, reading at most ``max_rows`` rows.

    Iteration is lazy, so a cross product with millions of solutions costs only the
    rows we keep (docs/faults.md section 3).
    """
    if isinstance(raw, ox.QueryBoolean):
        return QueryResult(form="ASK", boolean=bool(raw), elapsed_s=time.perf_counter() - started)
    rows: list[Row] = []
    truncated = False
    if isinstance(raw, ox.QueryTriples):
        for triple in itertools.islice(raw, max_rows + 1):
            if len(rows) == max_rows:
                truncated = True
                break
            rows.append(
                {
                    "subject": to_term(triple.subject),
                    "predicate": to_term(triple.predicate),
                    "object": to_term(triple.object),
                }
            )
        variables = list(CONSTRUCT_VARIABLES)
    else:
        variables = [v.value for v in raw.variables]
        for solution in itertools.islice(raw, max_rows + 1):
            if len(rows) == max_rows:
                truncated = True
                break
            row: Row = {}
            for name in variables:
                value = solution[name]
                if value is not None:
                    row[name] = to_term(value)
            rows.append(row)
    notes = [f"stopped after {max_rows} rows (row cap)"] if truncated else []
    return QueryResult(
        form=form,
        variables=variables,
        rows=rows,
        truncated=truncated,
        elapsed_s=time.perf_counter() - started,
        notes=notes,
    )


def rdf_format_for(path_suffix: str) -> ox.RdfFormat:
    """Return the pyoxigraph RDF format for a file suffix (``.ttl``, ``.nt``, ``.owl``, ...).

    Raises:
        ValueError: The suffix is not a known RDF serialisation.
    """
    suffix = path_suffix.lower().lstrip(".")
    formats = {
        "ttl": ox.RdfFormat.TURTLE,
        "turtle": ox.RdfFormat.TURTLE,
        "nt": ox.RdfFormat.N_TRIPLES,
        "ntriples": ox.RdfFormat.N_TRIPLES,
        "nq": ox.RdfFormat.N_QUADS,
        "trig": ox.RdfFormat.TRIG,
        "n3": ox.RdfFormat.N3,
        "rdf": ox.RdfFormat.RDF_XML,
        "owl": ox.RdfFormat.RDF_XML,
        "xml": ox.RdfFormat.RDF_XML,
    }
    try:
        return formats[suffix]
    except KeyError:
        raise ValueError(f"unknown RDF file type {path_suffix!r}; expected one of {sorted(formats)}") from None


def has_named_graphs(store: ox.Store) -> bool:
    """Whether the store holds any named graph (provenance graphs of the offline Wikidata store, say).

    Only such stores need queries to read the union of all graphs; reading the union costs
    pyoxigraph 5-10% on a plain store, so it is asked for only when it changes the answer.
    """
    return next(iter(store.named_graphs()), None) is not None

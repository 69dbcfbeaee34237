"""Harvest question-query pairs: a graph's own published examples, and a train split.

Published shapes read (from RDF files with rdflib, or from the graph itself with one bounded,
guarded SELECT per shape):

* SHACL executables: a node with ``sh:select`` or ``sh:ask`` (``sh:construct`` is skipped: it
  answers no question), its question in ``rdfs:comment``, else ``rdfs:label``.
* The ``spex`` convention (SIB's sparql-examples, used by UniProt, Bgee, Rhea ...): the same
  SHACL properties on a ``sh:SPARQLExecutable``, with ``spex:`` extras; read by the same rule.
* eccenca's ``shui:SparqlQuery`` (the TEXT2SPARQL CK25 ``queries.ttl``): ``rdfs:label`` and
  ``shui:queryText``.

A train split is any loaded benchmark: its questions with their gold queries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.errors import ConfigurationError, SagaError
from saga_kgqa.examples.file_reading import read_text_file
from saga_kgqa.examples.model import QueryExample, clipped
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph

SH = "http://www.w3.org/ns/shacl#"
SHUI = "https://vocab.eccenca.com/shui/"
SPEX = "https://purl.expasy.org/sparql-examples/ontology#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
#: Examples read from one graph at most.
MAX_GRAPH_EXAMPLES = 5_000

# (source tag, query property, question properties in order of preference)
_SHAPES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("graph:shacl", f"{SH}select", (f"{RDFS}comment", f"{RDFS}label")),
    ("graph:shacl", f"{SH}ask", (f"{RDFS}comment", f"{RDFS}label")),
    ("graph:shui", f"{SHUI}queryText", (f"{RDFS}label", f"{RDFS}comment")),
)


def harvest_files(paths: Sequence[Path]) -> list[QueryExample]:
    """The published examples in RDF files (any format rdflib reads by extension).

    Raises:
        ConfigurationError: A file is missing or does not parse.
    """
    import rdflib

    found: list[QueryExample] = []
    for path in paths:
        graph = rdflib.Graph()
        # Read as a file first (regular, bounded, strict UTF-8): rdflib would read a FIFO or /dev/zero forever.
        text = read_text_file(path)
        try:
            graph.parse(data=text, format=rdflib.util.guess_format(str(path)) or "turtle")
        except RecursionError:
            raise ConfigurationError(f"cannot read examples from {path}: nested too deeply") from None
        except (SyntaxError, ValueError) as exc:
            raise ConfigurationError(f"cannot read examples from {path}: {' '.join(str(exc).split())[:200]}") from exc
        for source, query_property, question_properties in _SHAPES:
            for subject, query in graph.subject_objects(rdflib.URIRef(query_property)):
                texts = (_best(graph.objects(subject, rdflib.URIRef(p))) for p in question_properties)
                question = next((t for t in texts if t is not None), None)
                if question is not None:
                    tag = _spex_tag(graph, subject, source)
                    found.append(clipped(question[0], str(query), source=tag, origin=str(path), language=question[1]))
    return _unique(found)


def harvest_graph(graph: KnowledgeGraph, *, deadline_s: float = 20.0) -> list[QueryExample]:
    """The examples a graph publishes about itself, read with one guarded SELECT per shape.

    A shape the graph does not hold costs one empty query; a failing query is skipped (a
    graph that cannot answer it publishes no examples we can read).
    """
    found: list[QueryExample] = []
    for source, query_property, question_properties in _SHAPES:
        question = " ".join(f"OPTIONAL {{ ?x <{p}> ?q{i} }}" for i, p in enumerate(question_properties))
        text = f"SELECT ?x ?query ?q0 ?q1 WHERE {{ ?x <{query_property}> ?query . {question} }}"
        try:
            result = graph.query(text, limits=ExecutionLimits(deadline_s=deadline_s, max_rows=MAX_GRAPH_EXAMPLES))
        except SagaError:
            continue
        for row in result.rows:
            asked = row.get("q0") or row.get("q1")
            if asked is None or "query" not in row:
                continue
            found.append(
                clipped(
                    asked.value, row["query"].value, source=source, origin=graph.endpoint_id, language=asked.lang or ""
                )
            )
    return _unique(found)


def from_benchmark(questions: Iterable[BenchmarkQuestion], name: str) -> list[QueryExample]:
    """A train split's questions with their gold queries (questions without one are skipped)."""
    return _unique(
        clipped(q.question, q.gold_sparql, source=f"train:{name}", origin=q.id, language=q.language)
        for q in questions
        if q.gold_sparql
    )


def _best(objects: Iterable[object]) -> tuple[str, str] | None:
    """The English (or untagged, else any) text among literals, with its language tag."""
    texts = [(str(o), getattr(o, "language", None) or "") for o in objects]
    if not texts:
        return None
    texts.sort(key=lambda t: (0 if t[1].startswith("en") else 1 if not t[1] else 2, t[0]))
    return texts[0]


def _spex_tag(graph: Any, subject: Any, source: str) -> str:
    """``graph:spex`` when the example also uses the spex vocabulary."""
    return "graph:spex" if any(str(p).startswith(SPEX) for p in graph.predicates(subject)) else source


def _unique(examples: Iterable[QueryExample]) -> list[QueryExample]:
    from saga_kgqa.examples.normalise import normalise_query, normalise_question

    seen: set[tuple[str, str]] = set()
    out = []
    for example in examples:
        key = (normalise_question(example.question), normalise_query(example.sparql))
        if key not in seen:
            seen.add(key)
            out.append(example)
    return out

"""How ``saga sparql`` shows a result: IRIs as the query wrote them, labels the graph has, why it is empty.

An IRI prints with the query's own prefixes (then the profile's), as ``ex:Apollo13``, and with its
``rdfs:label`` when the graph has one that says more than the id (``"Apollo 13" (ex:Apollo13)``): one
extra query for at most :data:`MAX_LABELLED` IRIs under a short deadline, skipped on any failure. An
empty result is diagnosed as ``saga execute`` does (each required pattern, then the join, then each
FILTER, probed with small ASK queries through the same guard), so the command says which part matches
nothing instead of printing an empty table alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from saga_kgqa.errors import SagaError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.result import QueryResult, Term
from saga_kgqa.kg.guard.query_text import declared_prefixes
from saga_kgqa.tools.render import labelled

if TYPE_CHECKING:
    from saga_kgqa.kg.knowledge_graph import KnowledgeGraph

#: Most IRIs of one result looked up for labels.
MAX_LABELLED = 200
#: Seconds the label lookup may take.
LABEL_DEADLINE_S = 5.0
_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
#: Characters an IRIREF may not hold: such an IRI is shown without a label rather than sent back.
_NOT_IRIREF = re.compile(r'[\x00-\x20<>"{}|^`\\]')


def display_prefixes(graph: KnowledgeGraph, text: str) -> dict[str, str]:
    """The query's own declarations, then the profile's prefixes for namespaces the query does not name."""
    own = dict(declared_prefixes(text))
    named = set(own.values())
    return own | {name: iri for name, iri in graph.profile.prefixes.items() if iri not in named and name not in own}


def graph_labels(graph: KnowledgeGraph, result: QueryResult) -> dict[str, str]:
    """``rdfs:label`` of the result's IRIs (English, else untagged, else any), empty when the lookup fails."""
    iris = sorted(
        {
            term.value
            for row in result.rows
            for term in row.values()
            if term is not None and term.kind == "uri" and not _NOT_IRIREF.search(term.value)
        }
    )[:MAX_LABELLED]
    if not iris:
        return {}
    values = " ".join(f"<{iri}>" for iri in iris)
    query = f"SELECT ?s ?l WHERE {{ VALUES ?s {{ {values} }} ?s <{_LABEL}> ?l }}"
    try:
        found = graph.query(query, limits=ExecutionLimits(deadline_s=LABEL_DEADLINE_S, max_rows=len(iris) * 8))
    except SagaError:
        return {}
    best: dict[str, tuple[int, str]] = {}
    for row in found.rows:
        subject, label = row.get("s"), row.get("l")
        if subject is None or label is None:
            continue
        rank = 0 if (label.lang or "").lower().startswith("en") else 1 if not label.lang else 2
        if subject.value not in best or rank < best[subject.value][0]:
            best[subject.value] = (rank, label.value)
    return {iri: label for iri, (_rank, label) in best.items()}


def cell_renderer(prefixes: Mapping[str, str], labels: Mapping[str, str]) -> Callable[[Term], str]:
    """A table cell for an IRI: compact with ``prefixes``, with its label when it has one."""

    def render(term: Term) -> str:
        return labelled(term.value, labels.get(term.value), prefixes)

    return render


def empty_reason(graph: KnowledgeGraph, text: str, *, deadline_s: float) -> str | None:
    """Why the query's result is empty, in a sentence or two; None when the probes cannot tell."""
    # Imported here: the diagnosis (the algebra, the schema's and the execute tool's models) is for empty
    # results only, and a result with rows is most of what `saga sparql` prints.
    from saga_kgqa.kg.guard.sparql_algebra import parse_algebra
    from saga_kgqa.tools.execute.empty_diagnosis import DiagnosisSettings, diagnose_empty

    try:
        checked = graph.check(text)
        root = parse_algebra(checked.text, graph.profile.prefixes, comments_blanked=checked.origin == "guard")
        settings = DiagnosisSettings(total_deadline_s=min(DiagnosisSettings().total_deadline_s, deadline_s))
        diagnosis = diagnose_empty(root, graph=graph, display_prefixes=display_prefixes(graph, text), settings=settings)
    except SagaError:
        return None
    return diagnosis.message or None

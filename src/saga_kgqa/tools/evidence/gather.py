"""Gather an answer's evidence: patterns, one supporting-triple query, statements, labels (all bounded).

Three reads at most, each bounded and each through the graph's read-only guard: the supporting
triples (:mod:`~saga_kgqa.tools.evidence.support`), the Wikidata statements behind them when
there are any (:mod:`~saga_kgqa.tools.evidence.statements`), and the labels of the IRIs shown.
Evidence only explains an answer: a read that fails leaves the evidence empty with a note saying
why, and never changes the answer or the run's outcome.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from saga_kgqa.errors import QueryRejected, SagaError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.result import QueryResult, Term
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.state.evidence import (
    Evidence,
    EvidenceTerm,
    EvidenceTriple,
    Qualifier,
    Rank,
    Reference,
    RowEvidence,
    StatementEvidence,
    TermKind,
)
from saga_kgqa.state.records import Answer
from saga_kgqa.text_safety import graph_text, outside_value
from saga_kgqa.tools.evidence.patterns import Block, query_blocks
from saga_kgqa.tools.evidence.statements import (
    Statement,
    entity_of,
    read_statements,
    statement_keys,
    statements_query,
)
from saga_kgqa.tools.evidence.support import Found, RowSupport, support_query, supported_rows
from saga_kgqa.tools.graph_reads import Reads
from saga_kgqa.tools.render import iri_text

_RANKS: dict[str, Rank] = {"preferred": "preferred", "normal": "normal", "deprecated": "deprecated"}
#: The guard's reasons for refusing a text by its size (its parse would cost too much, or it is too long).
_TOO_BIG = frozenset({"too_complex", "too_large"})
#: Characters of a label or literal shown.
TEXT_CHARS = 80


@dataclass(frozen=True, slots=True)
class EvidenceSettings:
    """How much evidence is read.

    Attributes:
        rows: Answer rows evidence is read for (the first ones).
        per_row: Supporting triples kept per row.
        per_statement: Qualifiers and references kept per statement.
        deadline_s: Wall-clock budget of each read.
        language: Preferred language of labels.
    """

    rows: int = 20
    per_row: int = 12
    per_statement: int = 8
    deadline_s: float = 20.0
    language: str = "en"


def gather_evidence(
    graph: KnowledgeGraph,
    sparql: str,
    answer: Answer | None,
    *,
    prefixes: Mapping[str, str],
    label_predicates: Sequence[str],
    settings: EvidenceSettings,
) -> Evidence:
    """The evidence of ``answer``, the result of ``sparql`` on ``graph`` (never raises a :class:`SagaError`)."""
    rows: list[Mapping[str, str]]
    if answer is None:
        return Evidence(sparql=sparql, note="no answer to explain")
    if answer.boolean is not None:
        if not answer.boolean:
            return Evidence(sparql=sparql, note="an ASK answered false has no supporting triples")
        rows = [{}]
    else:
        rows = list(answer.rows[: settings.rows])
    # Rows whose evidence could not be read count as checked and unsupported, never as absent.
    unread = Evidence(sparql=sparql, row_cap=settings.rows, rows_checked=len(rows))
    try:
        blocks = query_blocks(sparql, {**graph.profile.prefixes, **prefixes})
    except SagaError as exc:
        return unread.model_copy(update={"note": f"the query's patterns could not be read: {exc.message}"})
    patterns = tuple(f"{s.text} {p.text} {o.text}" for block in blocks for s, p, o in block.triples)
    base = unread.model_copy(update={"patterns": patterns})
    if not rows:
        return base
    try:
        result = _support(graph, blocks, rows, settings)
    except SagaError as exc:
        return base.model_copy(update={"note": f"the evidence query did not run: {exc.message}"})
    if result is None:
        return base.model_copy(update={"note": "the query has no triple patterns to support its rows"})
    support = supported_rows(blocks, result.rows, len(rows), per_row=settings.per_row)
    note = "the evidence query hit its limit: some rows may show fewer triples" if result.truncated else ""
    statements, statement_note = _statements(graph, support, settings)
    labels = _labels(graph, support, statements, label_predicates, settings.language)
    shown = _Shown(prefixes, labels)
    row_records = tuple(
        _row(-1 if answer.boolean is not None else index, found, statements, shown)
        for index, found in enumerate(support)
    )
    return base.model_copy(
        update={
            "rows": row_records,
            "rows_checked": len(rows),
            "rows_supported": sum(1 for found in support if found.triples),
            "note": "; ".join(part for part in (note, statement_note) if part),
        }
    )


def _support(
    graph: KnowledgeGraph, blocks: Sequence[Block], rows: Sequence[Mapping[str, str]], settings: EvidenceSettings
) -> QueryResult | None:
    """Run the supporting-triple query: row by row, or rows grouped when the guard finds that text too large.

    Only one query reaches the graph: a text the guard refuses for its size is never sent, and
    the next try groups twice as many rows per subquery.
    """
    group = 1
    while True:
        built = support_query(blocks, rows, per_row=settings.per_row, group_rows=group)
        if built is None:
            return None
        text, limit = built
        try:
            return graph.query(text, ExecutionLimits(deadline_s=settings.deadline_s, max_rows=limit))
        except QueryRejected as exc:
            if exc.reason not in _TOO_BIG or group >= len(rows):
                raise
        group *= 2


def _statements(
    graph: KnowledgeGraph, support: Sequence[RowSupport], settings: EvidenceSettings
) -> tuple[dict[str, Statement], str]:
    """The statements behind the supporting triples (one query; none on a graph without them)."""
    nodes: dict[str, None] = {}
    truthy: dict[tuple[str, str, Term], None] = {}
    for row in support:
        for triple in row.triples:
            node, key = statement_keys(triple)
            if node is not None:
                nodes.setdefault(node, None)
            if key is not None:
                truthy.setdefault(key, None)
    limit = (len(nodes) + len(truthy)) * settings.per_statement * 4
    try:
        text = statements_query(list(nodes), list(truthy), limit)
        if text is None:
            return {}, ""
        result = graph.query(text, ExecutionLimits(deadline_s=settings.deadline_s, max_rows=limit))
    except SagaError as exc:
        return {}, f"statements not read: {exc.message}"
    found = read_statements(result.rows, per_statement=settings.per_statement)
    return found, "statement details hit their limit" if result.truncated else ""


def _labels(
    graph: KnowledgeGraph,
    support: Sequence[RowSupport],
    statements: Mapping[str, Statement],
    label_predicates: Sequence[str],
    language: str,
) -> dict[str, str]:
    """Labels of the IRIs shown (a Wikidata property in any namespace by its entity's label)."""
    iris: dict[str, None] = {}
    for row in support:
        for triple in row.triples:
            for term in (triple.subject, triple.predicate, triple.object):
                if term.kind == "uri":
                    iris.setdefault(entity_of(term.value), None)
    for statement in statements.values():
        iris.setdefault(statement.subject, None)
        for key, value in [*statement.qualifiers, *(v for vs in statement.references.values() for v in vs)]:
            iris.setdefault(entity_of(key), None)
            if value.kind == "uri":
                iris.setdefault(value.value, None)
    wanted = [value for value in iris if " " not in value and "<" not in value][:500]
    if not wanted or not label_predicates:
        return {}
    try:
        texts = Reads(graph, language=language).texts(wanted, label_predicates, ())
    except SagaError:  # labels only decorate the evidence
        return {}
    return {value: found.label for value, found in texts.items() if found.label}


@dataclass(frozen=True, slots=True)
class _Shown:
    prefixes: Mapping[str, str]
    labels: Mapping[str, str]

    def term(self, term: Term) -> EvidenceTerm:
        if term.kind == "uri":
            label = self.labels.get(entity_of(term.value))
            path = term.value.startswith("<") or " " in term.value
            return EvidenceTerm(
                value=outside_value(term.value, None),
                kind="uri",
                label=graph_text(label, TEXT_CHARS) if label else None,
                short=graph_text(term.value, 200) if path else iri_text(term.value, self.prefixes),
            )
        kind: TermKind = "bnode" if term.kind == "bnode" else "literal"
        suffix = f"@{term.lang}" if term.lang else ""
        return EvidenceTerm(
            value=outside_value(term.value, None),
            kind=kind,
            short=graph_text(term.value, TEXT_CHARS) + suffix,
            lang=term.lang,
            datatype=term.datatype,
        )

    def iri(self, value: str) -> EvidenceTerm:
        return self.term(Term("uri", value))


def _row(index: int, support: RowSupport, statements: Mapping[str, Statement], shown: _Shown) -> RowEvidence:
    triples = tuple(
        EvidenceTriple(
            subject=shown.term(found.subject),
            predicate=shown.term(found.predicate),
            object=shown.term(found.object),
            pattern=found.pattern,
        )
        for found in support.triples
    )
    return RowEvidence(
        row=index,
        triples=triples,
        statements=tuple(_statement(s, shown) for s in _row_statements(support.triples, statements)),
        truncated=support.truncated,
    )


def _row_statements(triples: Sequence[Found], statements: Mapping[str, Statement]) -> list[Statement]:
    """The statements behind a row's triples, in the order its triples name them."""
    out: dict[str, Statement] = {}
    for triple in triples:
        node, key = statement_keys(triple)
        if node is not None and node in statements:
            out.setdefault(node, statements[node])
        elif key is not None:
            subject, pid, value = key
            for statement in statements.values():
                if statement.subject == subject and statement.property_id == pid and statement.value == value:
                    out.setdefault(statement.node, statement)
    return list(out.values())


def _statement(statement: Statement, shown: _Shown) -> StatementEvidence:
    rank = _RANKS.get(statement.rank, "unknown")
    value = shown.term(statement.value) if statement.value is not None else shown.iri(statement.node)
    return StatementEvidence(
        statement=outside_value(statement.node, None),
        subject=outside_value(statement.subject, None),
        property=entity_of(f"http://www.wikidata.org/prop/{statement.property_id}"),
        value=value,
        rank=rank,
        deprecated=rank == "deprecated",
        qualifiers=tuple(
            Qualifier(property=shown.iri(entity_of(k)), value=shown.term(v)) for k, v in statement.qualifiers
        ),
        references=tuple(
            Reference(
                node=outside_value(node, None),
                values=tuple(Qualifier(property=shown.iri(entity_of(k)), value=shown.term(v)) for k, v in values),
            )
            for node, values in statement.references.items()
        ),
    )

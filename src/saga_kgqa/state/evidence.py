"""The evidence behind an answer: the executed query and, per answer row, the triples that support it.

Written once by the ``evidence`` node after ``finalize`` and carried unchanged by every face
(``saga ask --json``, MCP ``kg_ask``'s structured content, the web page, the LangGraph output).
A supporting triple is one of the final query's triple patterns with the row's bindings (and the
bindings found for the query's other variables) substituted, read back from the graph. On a
Wikidata-shaped graph a triple that is a statement's (``p:``/``ps:``, or the ``wdt:`` truthy
shortcut of one) carries the statement: its rank, qualifiers and references, a deprecated rank
flagged. All values are graph text: cleaned and capped before they are stored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

_FROZEN = ConfigDict(frozen=True, extra="forbid")

#: What an RDF term is: an IRI, a literal, or a blank node.
TermKind = Literal["uri", "literal", "bnode"]
#: A Wikidata statement rank (``wikibase:PreferredRank`` …), or ``unknown`` when the graph states none.
Rank = Literal["preferred", "normal", "deprecated", "unknown"]


class EvidenceTerm(BaseModel):
    """One term of a supporting triple.

    Attributes:
        value: The IRI, the literal's lexical form, or the blank node's id (or a property path's text).
        kind: ``uri``, ``literal`` or ``bnode`` (a property path is shown as ``uri``).
        label: Its label in the run's language, when the graph has one (IRIs only).
        short: Its prefixed name (``wd:Q42``), else the IRI in angle brackets; a literal's text.
        lang: A literal's language tag.
        datatype: A literal's datatype IRI.
    """

    model_config = _FROZEN

    value: str
    kind: TermKind = "uri"
    label: str | None = None
    short: str = ""
    lang: str | None = None
    datatype: str | None = None

    def text(self) -> str:
        """``Label (short)`` for a labelled IRI, else the short form."""
        return f"{self.label} ({self.short})" if self.label else self.short or self.value


class EvidenceTriple(BaseModel):
    """A triple of the graph that supports a row.

    Attributes:
        subject: Its subject.
        predicate: Its predicate (a property path's text when the pattern used a path).
        object: Its object.
        pattern: The index of the query's triple pattern it instantiates (see :attr:`Evidence.patterns`).
    """

    model_config = _FROZEN

    subject: EvidenceTerm
    predicate: EvidenceTerm
    object: EvidenceTerm
    pattern: int = 0

    def text(self) -> str:
        """The triple on one line."""
        return f"{self.subject.text()} {self.predicate.text()} {self.object.text()}"


class Qualifier(BaseModel):
    """One qualifier of a statement (``pq:P580 "2001-01-01"``)."""

    model_config = _FROZEN

    property: EvidenceTerm
    value: EvidenceTerm


class Reference(BaseModel):
    """One reference of a statement: its node and its values (``pr:P854 <https://…>``)."""

    model_config = _FROZEN

    node: str
    values: tuple[Qualifier, ...] = ()


class StatementEvidence(BaseModel):
    """A Wikidata statement behind a supporting triple.

    Attributes:
        statement: The statement node's IRI.
        subject: The item the statement is about.
        property: The property's entity IRI (``wd:P27``'s ``…/entity/P27``).
        value: The statement's main value (``ps:``).
        rank: ``preferred``, ``normal``, ``deprecated`` or ``unknown``.
        deprecated: True for a deprecated-rank statement: the graph itself says it is not to be trusted.
        qualifiers: Its qualifiers (capped).
        references: Its references (capped).
    """

    model_config = _FROZEN

    statement: str
    subject: str
    property: str
    value: EvidenceTerm
    rank: Rank = "unknown"
    deprecated: bool = False
    qualifiers: tuple[Qualifier, ...] = ()
    references: tuple[Reference, ...] = ()


class RowEvidence(BaseModel):
    """The evidence of one answer row.

    Attributes:
        row: The row's index in the answer (0-based; -1 for an ASK answer).
        triples: The supporting triples (capped).
        statements: The statements behind them (Wikidata-shaped graphs).
        truncated: More supporting triples exist than are shown.
    """

    model_config = _FROZEN

    row: int
    triples: tuple[EvidenceTriple, ...] = ()
    statements: tuple[StatementEvidence, ...] = ()
    truncated: bool = False

    @property
    def deprecated(self) -> bool:
        """True when a statement behind this row has deprecated rank."""
        return any(statement.deprecated for statement in self.statements)


class Evidence(BaseModel):
    """The evidence of an answer.

    Attributes:
        sparql: The executed query the evidence is for.
        patterns: The query's triple patterns, as SPARQL text (positive patterns only: no MINUS or NOT EXISTS).
        rows: Per answer row (up to :attr:`row_cap`), its supporting triples.
        rows_checked: Answer rows evidence was read for.
        rows_supported: Of those, the rows with at least one supporting triple.
        row_cap: The most rows evidence is read for (the run's ``evidence_rows``).
        note: Why evidence is missing or partial ("" when it is complete).
    """

    model_config = _FROZEN

    sparql: str
    patterns: tuple[str, ...] = ()
    rows: tuple[RowEvidence, ...] = ()
    rows_checked: int = 0
    rows_supported: int = 0
    row_cap: int = 0
    note: str = ""

    @property
    def coverage(self) -> float:
        """Share of the checked rows with at least one supporting triple (1.0 when none were checked)."""
        return self.rows_supported / self.rows_checked if self.rows_checked else 1.0


def evidence_line(evidence: Mapping[str, Any], note: Callable[[str], str] = str) -> str:
    """One line on an answer's evidence (an :class:`Evidence` as JSON): rows supported, deprecated rows, the note.

    Each face adds where its reader finds the triples; ``note`` prepares the note for that face.
    """
    line = (
        f"evidence: supporting triples for {evidence.get('rows_supported', 0)} of the first "
        f"{evidence.get('rows_checked', 0)} answer rows"
    )
    deprecated = [
        str(row.get("row", "?"))
        for row in evidence.get("rows") or []
        if any(statement.get("deprecated") for statement in row.get("statements") or [])
    ]
    if deprecated:
        line += f"; DEPRECATED statement behind row(s) {', '.join(deprecated)}"
    if evidence.get("note"):
        line += f" ({note(str(evidence['note']))})"
    return line

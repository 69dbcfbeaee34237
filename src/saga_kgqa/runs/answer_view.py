"""Readable answers: each IRI of an answer shown with its label and a short prefixed name.

One function for every face (the CLI table, the web page, MCP ``ask``, the LangGraph
output): :func:`answer_views` reads the labels of the answer's IRIs in one bounded query
(the run's language first, then untagged, then any language; the shortest, then the first
alphabetically) and pairs each with its prefixed name. The exact IRIs stay in the answer
itself (``--json`` keeps them); the scored query is never touched. Labels are outside
text: they are cleaned and capped before any face shows them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from saga_kgqa.errors import SagaError
from saga_kgqa.schema.queries import path_alternative, values_clause
from saga_kgqa.state.records import Answer
from saga_kgqa.text_safety import graph_text
from saga_kgqa.tools.render import iri_text

if TYPE_CHECKING:
    from saga_kgqa.tools.toolbox import ToolView

#: IRIs labelled per answer (the rows a face shows; more stay as short names).
MAX_LABELLED = 500
#: Characters of a label shown.
LABEL_CHARS = 60
#: An answer value that is an IRI (answers keep IRIs in full, literals as their lexical form).
_IRI = re.compile(r"^(?:https?|urn|ftp|file|mailto|tag):[^\s<>\"{}|\\^`]+$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class TermView:
    """How one IRI is shown.

    Attributes:
        label: Its label (cleaned and capped), or None when the graph has none.
        short: Its prefixed name (``ex:JimLovell``), else the IRI in angle brackets.
    """

    label: str | None
    short: str

    def text(self) -> str:
        """``Label (short)``, or just the short name when there is no label."""
        return f"{self.label} ({self.short})" if self.label else self.short

    def to_json(self) -> dict[str, Any]:
        """``{"label", "short"}`` for JSON faces."""
        return {"label": self.label, "short": self.short}


def is_iri(value: str) -> bool:
    """True when an answer value is an IRI (not a literal's lexical form)."""
    return bool(_IRI.match(value))


def answer_iris(answer: Answer | None, limit: int = MAX_LABELLED) -> list[str]:
    """The distinct IRIs of an answer's rows, in order of first appearance (at most ``limit``)."""
    seen: dict[str, None] = {}
    for row in answer.rows if answer is not None else ():
        for value in row.values():
            if is_iri(value) and value not in seen:
                seen[value] = None
                if len(seen) >= limit:
                    return list(seen)
    return list(seen)


def rank_label(value: str, lang: str | None, language: str) -> tuple[int, int, str]:
    """Sort key of a candidate label: the run's language, then untagged, then any; shorter first."""
    tag = (lang or "").lower().split("-")[0]
    return (0 if tag == language.lower() else 1 if not tag else 2, len(value), value)


def read_labels(view: ToolView, iris: Sequence[str], label_predicates: Sequence[str], language: str) -> dict[str, str]:
    """The best label of each IRI (see :func:`rank_label`); a failed read leaves the IRIs unlabelled."""
    if not iris or not label_predicates:
        return {}
    body = (
        f"SELECT ?x ?text WHERE {{ {values_clause('x', iris)} ?x {path_alternative(label_predicates)} ?text "
        "FILTER(isLiteral(?text)) }"
    )
    try:
        rows = view.context.reads().select(body, limit=len(iris) * 10).rows
    except SagaError:  # labels only decorate an answer: without them it is still shown
        return {}
    best: dict[str, tuple[int, int, str]] = {}
    for row in rows:
        if "x" in row and "text" in row:
            key = rank_label(row["text"].value, row["text"].lang, language)
            subject = row["x"].value
            if subject not in best or key < best[subject]:
                best[subject] = key
    return {subject: key[2] for subject, key in best.items()}


def views_for(iris: Iterable[str], labels: Mapping[str, str], prefixes: Mapping[str, str]) -> dict[str, TermView]:
    """A :class:`TermView` per IRI from its label (if any) and the prefixes."""
    out: dict[str, TermView] = {}
    for value in iris:
        label = labels.get(value)
        text = graph_text(label, LABEL_CHARS) if label else None
        out[value] = TermView(label=text or None, short=iri_text(value, prefixes))
    return out


def answer_views(view: ToolView, answer: Answer | None, language: str = "en") -> dict[str, TermView]:
    """How each IRI of ``answer`` is shown: its label in ``language`` (else any) and its short name."""
    iris = answer_iris(answer)
    context = view.context
    labels = read_labels(view, iris, tuple(context.vocabulary.label_predicates), language)
    return views_for(iris, labels, view.prefixes)


def cell_text(value: str, views: Mapping[str, TermView]) -> str:
    """One answer cell as text: ``Label (short)`` for a known IRI, else the value as cleaned graph text."""
    found = views.get(value)
    return found.text() if found is not None else graph_text(value)


def answer_text(answer: Answer | None, views: Mapping[str, TermView], *, max_rows: int = 50) -> str:
    """An answer as plain lines (MCP ``ask``, logs): the boolean, or ``var: cell | …`` per row."""
    if answer is None:
        return "(no answer)"
    if answer.boolean is not None:
        return "true" if answer.boolean else "false"
    lines = [
        " | ".join(f"{name}: {cell_text(row.get(name, ''), views)}" for name in answer.variables)
        for row in answer.rows[:max_rows]
    ]
    if len(answer.rows) > max_rows:
        lines.append(f"… {len(answer.rows) - max_rows} more row(s)")
    return "\n".join(lines) if lines else "(no rows)"


def views_json(views: Mapping[str, TermView]) -> dict[str, dict[str, Any]]:
    """``{iri: {"label", "short"}}`` for JSON faces (the answer rows keep the exact IRIs)."""
    return {value: found.to_json() for value, found in views.items()}


def readable_rows(
    view: ToolView,
    variables: Sequence[str],
    rows: Sequence[Mapping[str, str]],
    language: str = "en",
    max_rows: int = 20,
) -> str:
    """Answer rows (exact IRIs) as readable lines: the function MCP ``ask`` calls for its text."""
    answer = Answer(variables=tuple(variables), rows=tuple(dict(row) for row in rows), row_count=len(rows))
    return answer_text(answer, answer_views(view, answer, language), max_rows=max_rows)

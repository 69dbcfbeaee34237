"""What the answer checks read and what they report."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from saga_kgqa.kg.core.result import Term

CheckName = Literal["answer_type", "question_form", "know_before_use", "consistency", "dependent_step"]
#: What the question expects, as :class:`saga_kgqa.state.AnswerType` says (``count`` for "how many").
ExpectedKind = Literal["entity", "boolean", "quantity", "count", "date", "literal", "unknown"]

_QUERY_FORM = re.compile(r"\b(SELECT|ASK|CONSTRUCT|DESCRIBE)\b", re.IGNORECASE)
_PREFIX = re.compile(r"PREFIX\s+[^\s:]*:\s*<[^>]*>", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing a check noticed, worded for the controller.

    Attributes:
        check: The check that found it.
        message: One sentence: what looks wrong and what to consider.
    """

    check: CheckName
    message: str

    def text(self) -> str:
        """The observation line."""
        return f"[check {self.check}] {self.message}"


@dataclass(frozen=True, slots=True)
class CheckInput:
    """Everything the checks read.

    Attributes:
        question: The user's question.
        sparql: The final query.
        rows: Its result rows (variable → term); empty for ASK or an empty result.
        boolean: The ASK answer, ``None`` for other forms.
        expected: The expected answer kind (``unknown`` when none was predicted).
        observations: The texts the run's tools returned before this query was final.
        result_types: Classes Θ records for the result's values (trace-local evidence).
        expected_types: The expected answer class and its superclasses, when one was predicted.
        exists: Whether the graph (or the schema index) holds an IRI; an unseen IRI that exists is
            not reported as possibly invented. ``None`` reports every unseen IRI (GRASP's strict form).
        expected_label: The answer-type prior's own words ("name", "person"), which tell a name
            question from a number one where ``expected`` is only ``literal``.
        later_empty: ``(step, query)`` of the queries run after the final one that came back empty;
            one that uses the answer's values depended on it.
    """

    question: str
    sparql: str
    rows: Sequence[dict[str, Term]] = ()
    boolean: bool | None = None
    expected: ExpectedKind = "unknown"
    observations: Sequence[str] = ()
    result_types: frozenset[str] = field(default_factory=frozenset)
    expected_types: frozenset[str] = field(default_factory=frozenset)
    exists: Callable[[str], bool] | None = None
    expected_label: str = ""
    later_empty: Sequence[tuple[int, str]] = ()

    @property
    def form(self) -> str:
        """``SELECT``, ``ASK``, ``CONSTRUCT`` or ``DESCRIBE`` (the first form keyword after the prefixes)."""
        match = _QUERY_FORM.search(_PREFIX.sub(" ", self.sparql))
        return match.group(1).upper() if match else "SELECT"

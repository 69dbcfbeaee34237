"""GERBIL QA's aggregate measures, as the QALD leaderboard reports them.

Reproduced from dice-group/gerbil (branches ``QuestionAnsweringQALD10`` and
``QuestionAnswering``): ``matching/impl/QAMatchingsCounter.java`` counts one question and
``evaluate/impl/FMeasureCalculator.java`` aggregates.

Counting (``QAMatchingsCounter``): the system's and the gold's answers are sets of strings
(the value of every binding; an ASK answer is ``"true"`` or ``"false"``). Strings found in
both are true positives; the rest become annotations and go through the URI matcher, which
-- with no literal-to-resource converter registered and no ``owl:sameAs`` retrieval --
matches by equality, so the unmatched system strings are false positives and the unmatched
gold strings false negatives. (A deployment with a label index can also map a literal such
as ``"Paris"@en`` to a resource; that needs the KB's index and is not reproduced.)

Per question (``calculateMeasures``): with TP > 0, P = TP/(TP+FP), R = TP/(TP+FN), F1 their
harmonic mean; with TP = 0 all three are 1 when FP = FN = 0 (nothing to find, nothing
found) and 0 otherwise -- so a question left unanswered scores precision 0.

* Macro P/R/F1 ("Macro Precision", "Macro Recall", "Macro F1 score"): means of the
  per-question measures over every question.
* Micro P/R/F1: the same rule applied once to TP, FP and FN summed over the questions.
* "Macro F1 QALD" (``calculateF1QALD``): per question the QALD rule (``calculateMeasuresQALD``)
  differs in one case -- TP = 0, FP = 0, FN > 0 (the system gave no answer) scores precision
  1 -- and the figure is the harmonic mean of that macro precision and the macro recall. It
  is therefore not the harmonic mean of the reported macro P and R: a system that leaves
  many questions unanswered gets precision 1 on each of them.

Every question of the dataset counts, including those whose gold answer set is empty
(answered empty: 1/1/1; answered anything: 0).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from saga_kgqa.eval.qa.metrics import PrecisionRecall, answer_values
from saga_kgqa.kg.core.result import QueryResult

#: GERBIL's names for its measures, in the order the leaderboard prints them.
MEASURE_NAMES = (
    "Micro F1 score",
    "Micro Precision",
    "Micro Recall",
    "Macro F1 score",
    "Macro Precision",
    "Macro Recall",
    "Macro F1 QALD",
)


@dataclass(frozen=True, slots=True)
class GerbilCounts:
    """True positives, false positives and false negatives of one question (or summed)."""

    true_positives: int
    false_positives: int
    false_negatives: int

    def __add__(self, other: GerbilCounts) -> GerbilCounts:
        return GerbilCounts(
            self.true_positives + other.true_positives,
            self.false_positives + other.false_positives,
            self.false_negatives + other.false_negatives,
        )


def gerbil_answers(result: QueryResult | None) -> frozenset[str]:
    """The answer strings GERBIL compares: every binding's value; ASK as ``"true"``/``"false"``."""
    return frozenset() if result is None else answer_values(result)


def gerbil_counts(predicted: QueryResult | None, gold: QueryResult) -> GerbilCounts:
    """Count one question as ``QAMatchingsCounter`` does (a missing prediction answers nothing)."""
    system, expected = gerbil_answers(predicted), gerbil_answers(gold)
    hits = len(system & expected)
    return GerbilCounts(hits, len(system) - hits, len(expected) - hits)


def measures(counts: GerbilCounts, *, qald_rule: bool = False) -> tuple[float, float, float]:
    """Precision, recall and F1 of one count (``calculateMeasures`` / ``calculateMeasuresQALD``)."""
    tp, fp, fn = counts.true_positives, counts.false_positives, counts.false_negatives
    if tp == 0:
        if fp == 0 and fn == 0:
            return 1.0, 1.0, 1.0
        if qald_rule and fp == 0:
            return 1.0, 0.0, 0.0
        return 0.0, 0.0, 0.0
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    return precision, recall, 2 * precision * recall / (precision + recall)


def gerbil_prf(predicted: QueryResult | None, gold: QueryResult) -> PrecisionRecall:
    """One question's precision, recall and F1 under the QALD rule (no answer: precision 1)."""
    precision, recall, f1 = measures(gerbil_counts(predicted, gold), qald_rule=True)
    return PrecisionRecall(precision, recall, f1)


def _harmonic(precision: float, recall: float) -> float:
    # GERBIL divides 0 by 0 (NaN) when both are 0; a figure of 0 says the same without NaN in JSON.
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def _means(rows: Sequence[tuple[float, float, float]]) -> tuple[float, float, float]:
    count = len(rows)
    return (
        sum(r[0] for r in rows) / count,
        sum(r[1] for r in rows) / count,
        sum(r[2] for r in rows) / count,
    )


def gerbil_summary(questions: Iterable[GerbilCounts]) -> dict[str, float] | None:
    """GERBIL's seven QA measures (names as :data:`MEASURE_NAMES`, values in 0..1).

    Returns:
        ``None`` when there is no question.
    """
    counts = list(questions)
    if not counts:
        return None
    total = GerbilCounts(0, 0, 0)
    for item in counts:
        total = total + item
    micro = measures(total)
    macro = _means([measures(item) for item in counts])
    qald = _means([measures(item, qald_rule=True) for item in counts])
    values = (micro[2], micro[0], micro[1], macro[2], macro[0], macro[1], _harmonic(qald[0], qald[1]))
    return dict(zip(MEASURE_NAMES, values, strict=True))

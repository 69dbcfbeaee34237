"""A whole TEXT2SPARQL run scored as the official ``text2sparql evaluate`` command scores it.

Inputs are the client's own files: the true result set (``{"ck25:1-en": {value: weight}}``,
optionally with ``order_required``) and a predicted set of the same shape
(:func:`~saga_kgqa.eval.qa.metrics.text2sparql_values` makes one from a result). Per
question: trec_eval's ``set_P``, ``set_recall``, ``set_F``, and ``ndcg`` for ordered
questions. The means reproduce the client's (2.1.0) arithmetic, quirks included:

* a question whose gold set is empty is left out of every mean (trec_eval drops it);
* ``set_F_ndcg`` averages, per question, ``ndcg`` where it exists and ``set_F`` elsewhere,
  *and* the run's mean ``ndcg`` as one more term (``combine_averages`` iterates over the
  ``average`` entry too). :attr:`Text2SparqlScores.combined_per_question` is the same mean
  without that extra term.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from saga_kgqa.eval.qa.metrics import text2sparql_ndcg, text2sparql_prf

#: The questions.yml feature that puts a question into ``order_required``.
ORDER_FEATURE = "RESULT_ORDER_MATTERS"


@dataclass(frozen=True, slots=True)
class QuestionScore:
    """The official figures for one question (``ndcg`` only for ordered ones)."""

    set_p: float
    set_recall: float
    set_f: float
    ndcg: float | None = None


@dataclass(frozen=True, slots=True)
class Text2SparqlScores:
    """Per-question figures and the run's means, as ``text2sparql evaluate`` reports them.

    Attributes:
        questions: Question name -> figures (questions with empty gold are absent).
        set_p: Mean ``set_P``; ``set_recall`` and ``set_f`` likewise.
        ndcg: Mean ``ndcg`` over ordered questions (``None`` without any).
        set_f_ndcg: The official combined mean (quirk included, see the module docstring).
        combined_per_question: The combined mean over questions only.
        dropped: Questions left out because their gold is empty.
    """

    questions: dict[str, QuestionScore]
    set_p: float
    set_recall: float
    set_f: float
    ndcg: float | None
    set_f_ndcg: float | None
    combined_per_question: float
    dropped: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The figures under the official evaluator's names."""
        return {
            "average": {
                "set_P": self.set_p,
                "set_recall": self.set_recall,
                "set_F": self.set_f,
                "ndcg": self.ndcg,
                "set_F_ndcg": self.set_f_ndcg,
            },
            "combined_per_question": self.combined_per_question,
            "dropped": list(self.dropped),
            "questions": {
                name: {"set_P": s.set_p, "set_recall": s.set_recall, "set_F": s.set_f}
                | ({"ndcg": s.ndcg} if s.ndcg is not None else {})
                for name, s in self.questions.items()
            },
        }


def ordered_questions(questions: Iterable[Mapping[str, Any]], prefix: str, languages: Iterable[str]) -> list[str]:
    """The ``order_required`` names the client derives from a questions.yml's features."""
    names: list[str] = []
    for question in questions:
        if ORDER_FEATURE in (question.get("features") or []):
            names.extend(f"{prefix}:{question['id']}-{language}" for language in languages)
    return names


def score_run(
    predicted: Mapping[str, Mapping[str, int]],
    gold: Mapping[str, Any],
    order_required: Collection[str] | None = None,
) -> Text2SparqlScores:
    """Score a predicted set against a true set exactly as the official client does.

    Args:
        predicted: Question name -> predicted values (a missing question scores as empty).
        gold: The true result set; its ``order_required`` list is used unless one is given.
        order_required: The questions scored with nDCG as well.

    Returns:
        Per-question figures and means.
    """
    if order_required is None:
        listed = gold.get("order_required")
        order_required = list(listed) if isinstance(listed, list) else []
    questions: dict[str, QuestionScore] = {}
    dropped: list[str] = []
    for name, gold_values in gold.items():
        if name == "order_required" or not isinstance(gold_values, Mapping):
            continue
        values = predicted.get(name, {})
        figures = text2sparql_prf(values, gold_values)
        if figures is None:
            dropped.append(name)
            continue
        ndcg = text2sparql_ndcg(values, gold_values) if name in order_required else None
        questions[name] = QuestionScore(figures.precision, figures.recall, figures.f1, ndcg)
    scores = list(questions.values())
    ndcgs = [s.ndcg for s in scores if s.ndcg is not None]
    mean_ndcg = fmean(ndcgs) if ndcgs else None
    combined = [s.ndcg if s.ndcg is not None else s.set_f for s in scores]
    return Text2SparqlScores(
        questions=questions,
        set_p=fmean(s.set_p for s in scores) if scores else 0.0,
        set_recall=fmean(s.set_recall for s in scores) if scores else 0.0,
        set_f=fmean(s.set_f for s in scores) if scores else 0.0,
        ndcg=mean_ndcg,
        set_f_ndcg=fmean([*combined, mean_ndcg]) if mean_ndcg is not None else None,
        combined_per_question=fmean(combined) if combined else 0.0,
        dropped=dropped,
    )

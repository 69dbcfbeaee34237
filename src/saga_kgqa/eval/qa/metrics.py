"""Per-question answer metrics, each reproducing one published way of scoring.

Every function takes the predicted result (``None`` when there is no prediction: no query,
or a query that failed) and a gold result with at least one answer; empty or unavailable
gold is decided before scoring, by the gold store, and never scored as 0 or 1.

Sources:

* :func:`paper_f1` -- the SAGA paper's "Metrics" paragraph: F1 = 2|Â∩A*|/(|Â|+|A*|) per
  question, EM = 1[Â = A*]. The paper does not say what an answer is; we take the distinct
  lexical values of every cell (how TEXT2SPARQL flattens its official results), so the
  metric also applies to datasets that ship values only.
* :func:`strict_set_f1` -- the same formula over RDF terms (IRIs and literals with their
  datatype and language), raw or canonicalised (:mod:`saga_kgqa.eval.qa.canonical`).
* :func:`spinach_row_f1` -- SPINACH ``eval.py`` ``f1()`` (stanford-oval/spinach), "row-major F1".
* :func:`grasp_f1` -- GRASP ``sparql/metrics.py`` ``f1_score()`` (ad-freiburg/grasp).
* GERBIL QA's counts and measures live in :mod:`saga_kgqa.eval.qa.gerbil`.
* :func:`text2sparql_prf` and :func:`text2sparql_ndcg` -- the TEXT2SPARQL challenge's official
  evaluator (``text2sparql-client`` 2.1.0, ``utils/evaluation_metrics.py``), which hands
  :func:`text2sparql_values` to trec_eval's ``set_P``/``set_recall``/``set_F`` and ``ndcg``.

Booleans are explicit in every metric: an ASK answer is compared as a boolean, and each
function says what it does when only one side is an ASK.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.eval.qa.canonical import canonical_term
from saga_kgqa.kg.core.result import QueryResult, Term

_EVAL_EXTRA = "install the extra: pip install 'saga-kgqa[eval]' (or `make setup` for development)"


def _best_assignment(scores: npt.NDArray[Any]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Rows and columns of the assignment with the highest total score (SciPy's, as GRASP and SPINACH use).

    SciPy is the ``eval`` extra: the wheel's core runs questions, and only scoring needs it.

    Raises:
        ConfigurationError: SciPy is not installed.
    """
    try:
        from scipy.optimize import linear_sum_assignment
    except ImportError as exc:
        raise ConfigurationError(f"assignment F1 needs SciPy: {_EVAL_EXTRA} ({exc})") from exc
    rows, cols = linear_sum_assignment(scores, maximize=True)
    return rows, cols


#: GRASP switches from assignment F1 to exact multiset F1 above this many rows.
GRASP_EXACT_AFTER = 1024
#: SPINACH ignores gold columns whose variable name ends with one of these.
SPINACH_IGNORED_SUFFIXES = ("Label", "Description")


def is_empty(result: QueryResult) -> bool:
    """A SELECT result without rows (an ASK answer is never empty)."""
    return result.form != "ASK" and not result.rows


def answer_terms(result: QueryResult, *, canonical: bool = False) -> frozenset[Term]:
    """The distinct terms in every cell of a SELECT result."""
    terms = (term for row in result.rows for term in row.values())
    return frozenset(canonical_term(t) for t in terms) if canonical else frozenset(terms)


def answer_values(result: QueryResult) -> frozenset[str]:
    """The distinct lexical values of every cell; an ASK answer is ``{"true"}`` or ``{"false"}``."""
    if result.form == "ASK":
        return frozenset({"true" if result.boolean else "false"})
    return frozenset(term.value for row in result.rows for term in row.values())


def set_f1(predicted: frozenset[Hashable], gold: frozenset[Hashable]) -> float:
    """2|P∩G| / (|P|+|G|); two empty sets agree (1.0)."""
    if not predicted and not gold:
        return 1.0
    return 2 * len(predicted & gold) / (len(predicted) + len(gold))


def paper_f1(predicted: QueryResult | None, gold: QueryResult) -> float:
    """The paper's per-question F1 over answer values (EM is ``paper_f1 == 1``).

    Booleans: both sides become ``{"true"}``/``{"false"}``, so an ASK answer never matches
    a SELECT answer unless the latter's only value is that word.
    """
    if predicted is None:
        return 0.0
    return set_f1(answer_values(predicted), answer_values(gold))


def strict_set_f1(predicted: QueryResult | None, gold: QueryResult, *, canonical: bool = False) -> float:
    """Set F1 over RDF terms, raw or canonical.

    Booleans: 1.0 when both are ASK answers and agree, 0.0 when they differ or only one
    side is an ASK.
    """
    if predicted is None:
        return 0.0
    if predicted.form == "ASK" or gold.form == "ASK":
        return float(predicted.form == gold.form == "ASK" and predicted.boolean == gold.boolean)
    return set_f1(answer_terms(predicted, canonical=canonical), answer_terms(gold, canonical=canonical))


def spinach_row_f1(predicted: QueryResult | None, gold: QueryResult) -> float:
    """SPINACH's row-major F1, as in its ``eval.py``.

    Rows are matched one to one by a maximum-weight (Hungarian) assignment; a pair scores
    the fraction of the gold row's values (a multiset, variable names ignored, gold
    ``*Label``/``*Description`` columns dropped) found in the predicted row. TP is the sum
    of matched scores; a partial pair adds 1-score errors, a zero pair 2, an unmatched row
    1; F1 = 2TP/(2TP+errors). A gold row with only label columns scores 0 with every
    prediction. No prediction scores 0. Booleans: 1 only when both are ASK answers and
    agree (an ASK against a SELECT is 0).
    """
    if predicted is None:
        return 0.0
    if predicted.form == "ASK" or gold.form == "ASK":
        return float(predicted.form == gold.form == "ASK" and predicted.boolean == gold.boolean)
    gold_rows = [
        Counter(t for var, t in row.items() if not var.endswith(SPINACH_IGNORED_SUFFIXES)) for row in gold.rows
    ]
    predicted_rows = [Counter(row.values()) for row in predicted.rows]
    scores = _recall_matrix(predicted_rows, gold_rows, np.float64)
    rows, cols = _best_assignment(scores)
    assigned = scores[rows, cols]
    true_positives = float(assigned[assigned > 0].sum())
    partial = assigned[(assigned < 1) & (assigned > 0)]
    errors = float((1 - partial).sum()) + 2 * int(np.sum(assigned <= 0))
    errors += (len(predicted_rows) - len(rows)) + (len(gold_rows) - len(cols))
    return 2 * true_positives / (2 * true_positives + errors)


def grasp_f1(predicted: QueryResult | None, gold: QueryResult, *, exact_after: int = GRASP_EXACT_AFTER) -> float:
    """GRASP's assignment F1, as in its ``sparql/metrics.py`` ``f1_score``.

    Booleans: an ASK gold turns a SELECT prediction into "is it non-empty"; an ASK
    prediction against a SELECT gold scores 0 (GRASP's later fix: otherwise a trivial
    ``ASK { ?s ?p ?o }`` would score 1). Two empty results score 1, one empty result 0.
    Each row is a multiset of terms in projection order; a pair scores overlap / gold-row
    size; TP is the sum of assigned scores, FN adds 1-score per pair and unmatched gold
    rows, FP only unmatched predicted rows, so extra columns and values are never
    penalised. Above ``exact_after`` rows on either side it is exact multiset F1 over whole rows.
    """
    if predicted is None:
        return 0.0
    if gold.form == "ASK":
        answer = predicted.boolean if predicted.form == "ASK" else bool(predicted.rows)
        return float(answer == gold.boolean)
    if predicted.form == "ASK":
        return 0.0
    if is_empty(predicted) or is_empty(gold):
        return float(is_empty(predicted) and is_empty(gold))
    predicted_rows = _grasp_rows(predicted)
    gold_rows = _grasp_rows(gold)
    if len(predicted_rows) > exact_after or len(gold_rows) > exact_after:
        return _exact_multiset_f1(predicted_rows, gold_rows)
    return _assignment_f1([Counter(r) for r in predicted_rows], [Counter(r) for r in gold_rows])


def _grasp_rows(result: QueryResult) -> list[tuple[Term, ...]]:
    return [tuple(row[var] for var in result.variables if var in row) for row in result.rows]


def _exact_multiset_f1(predicted: Iterable[tuple[Term, ...]], gold: Iterable[tuple[Term, ...]]) -> float:
    predicted_counts, gold_counts = Counter(predicted), Counter(gold)
    true_positives = (predicted_counts & gold_counts).total()
    if true_positives == 0:
        return 0.0
    precision = true_positives / predicted_counts.total()
    recall = true_positives / gold_counts.total()
    return 2 * precision * recall / (precision + recall)


def _assignment_f1(predicted: Sequence[Counter[Term]], gold: Sequence[Counter[Term]]) -> float:
    # float32 as in GRASP: its scores, and so its ties, are computed in single precision.
    scores = _recall_matrix(predicted, gold, np.float32)
    rows, cols = _best_assignment(scores)
    assigned = scores[rows, cols]
    true_positives = float(assigned.sum())
    false_negatives = float((1 - assigned).sum()) + len(gold) - len(rows)
    false_positives = len(predicted) - len(rows)
    if true_positives <= 0.0:
        return 0.0
    precision = true_positives / (true_positives + false_positives)
    recall = true_positives / (true_positives + false_negatives)
    return 2 * precision * recall / (precision + recall)


def _recall_matrix(
    predicted: Sequence[Counter[Term]], gold: Sequence[Counter[Term]], dtype: type[np.floating[Any]]
) -> np.ndarray[Any, Any]:
    """Pair score matrix: multiset overlap of predicted row i and gold row j over gold row j's size.

    Both SPINACH and GRASP loop over every pair; only pairs sharing a value can score above
    zero, so an index from value to predicted rows gives the same matrix in a fraction of
    the time on results with thousands of rows. A gold row without values scores 0.
    """
    scores = np.zeros((len(predicted), len(gold)), dtype=dtype)
    rows_with: dict[Term, list[int]] = {}
    for i, predicted_row in enumerate(predicted):
        for term in predicted_row:
            rows_with.setdefault(term, []).append(i)
    for j, gold_row in enumerate(gold):
        size = gold_row.total()
        if not size:
            continue
        overlap: Counter[int] = Counter()
        for term, count in gold_row.items():
            for i in rows_with.get(term, ()):
                overlap[i] += min(count, predicted[i][term])
        for i, shared in overlap.items():
            scores[i, j] = shared / size
    return scores


@dataclass(frozen=True, slots=True)
class PrecisionRecall:
    """Precision, recall and F1 of one question."""

    precision: float
    recall: float
    f1: float


def text2sparql_values(result: QueryResult | None) -> dict[str, int]:
    """A result as TEXT2SPARQL's ``DBpediaDict2PytrecDict`` flattens it: value -> relevance.

    Every bound value of every projected column counts once (weight 1); an ASK answer is
    ``{"true": 1}`` or ``{"true": 0}``; a missing prediction is empty.
    """
    if result is None:
        return {}
    if result.form == "ASK":
        return {"true": 1 if result.boolean else 0}
    values: dict[str, int] = {}
    for variable in result.variables:
        for row in result.rows:
            term = row.get(variable)
            if term is not None:
                values[term.value] = 1
    return values


def text2sparql_prf(predicted: Mapping[str, int], gold: Mapping[str, int]) -> PrecisionRecall | None:
    """trec_eval's ``set_P``, ``set_recall`` and ``set_F`` as the official evaluator gets them.

    Every predicted value is "retrieved" whatever its weight (so an ASK answered ``false``
    retrieves ``"true"``: the official score of an ASK depends only on the gold); a gold value
    is relevant when its weight is at least 1.

    Returns:
        ``None`` when the gold judges nothing (trec_eval then leaves the question out of the mean).
    """
    if not gold:
        return None
    relevant = {value for value, weight in gold.items() if weight >= 1}
    hits = sum(1 for value in predicted if value in relevant)
    precision = hits / len(predicted) if predicted else 0.0
    recall = hits / len(relevant) if relevant else 0.0
    f1 = 2 * precision * recall / (precision + recall) if hits else 0.0
    return PrecisionRecall(precision, recall, f1)


def text2sparql_ndcg(predicted: Mapping[str, int], gold: Mapping[str, int]) -> float | None:
    """trec_eval's ``ndcg`` as the official evaluator gets it for ``order_required`` questions.

    trec_eval ranks the run by score, then by document name descending. The official client
    gives every predicted value the same score, so the rank is the values' reverse code-point
    order, not the order the query returned: the figure rewards the set, with a discount for
    wrong values that sort above right ones. Gain is the gold weight; the ideal ranks the
    gold's relevant values by weight.

    Returns:
        ``None`` when the gold judges nothing.
    """
    if not gold:
        return None
    ranked = sorted(predicted, key=lambda value: (-predicted[value], _descending(value)))
    dcg = sum(max(gold.get(value, 0), 0) / np.log2(rank + 2) for rank, value in enumerate(ranked))
    ideal_gains = sorted((weight for weight in gold.values() if weight > 0), reverse=True)
    ideal = sum(weight / np.log2(rank + 2) for rank, weight in enumerate(ideal_gains))
    return float(dcg / ideal) if ideal > 0 else 0.0


class _descending(str):
    """A string that sorts in reverse (trec_eval's ``strcmp(docno2, docno1)`` tie-break)."""

    __slots__ = ()

    def __lt__(self, other: str) -> bool:
        return str.__gt__(self, other)

"""An index's structure weights, calibrated on its own examples: for graphs no one tuned the defaults on.

The defaults (:data:`~saga_kgqa.examples.index.EMBEDDING_STRUCTURE`,
:data:`~saga_kgqa.examples.index.BM25_STRUCTURE`) were tuned on two Wikidata train splits. A private
graph's examples may say their query's shape in other words (a corporate directory's "sorted by", a
forum's free phrasing), so how much the wording's cues and the diversity of shapes should count differs
per graph. :func:`calibrate` measures that on the index's own examples, without any test question:
a seeded sample of them, each asked against the rest (itself and any example with its query left out),
scored by how much of its own query's properties and features the top ``k`` show
(:mod:`saga_kgqa.examples.coverage`; the mean of the two means, as ``bench/examples.py`` measures).
A setting of :data:`CALIBRATION_GRID` replaces the ranking's
defaults only when its gain over them, question by question, exceeds one standard error of those
gains: a small pool's noise keeps the defaults. The protocol and its measurement are in
docs/examples-and-answer-shape.md (sixth round).
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

from saga_kgqa.examples.coverage import covered, signature
from saga_kgqa.examples.index import ExampleIndex, StructureWeights

#: (cue, diversity, need_cues) settings tried, the same for both rankings; each ranking's other weights stay.
CALIBRATION_GRID: tuple[tuple[float, float, float], ...] = tuple(
    itertools.product((0.1, 0.3), (0.4, 0.8, 1.0), (0.25, 0.5))
)
#: Examples asked as questions at most (a seeded sample: the cost is this times the grid).
MAX_QUESTIONS = 200
#: Fewer measurable examples than this keep the defaults (too few to tell settings apart).
MIN_QUESTIONS = 20


@dataclass(frozen=True, slots=True)
class Calibration:
    """What :func:`calibrate` chose, and on what evidence.

    Attributes:
        structure: The weights to use (the index's own when nothing beat them).
        changed: Whether ``structure`` differs from the index's weights.
        questions: Examples asked as questions (0 when the pool was too small or the ranking is random).
        default_score: Mean of property and feature coverage under the index's weights.
        best_score: The same under the best setting of the grid.
        standard_error: Standard error of the best setting's per-question gains over the defaults.
    """

    structure: StructureWeights
    changed: bool
    questions: int
    default_score: float = math.nan
    best_score: float = math.nan
    standard_error: float = math.nan

    def describe(self) -> str:
        """One line for logs and the CLI."""
        weights = self.structure
        chosen = f"cue={weights.cue} diversity={weights.diversity} need_cues={weights.need_cues}"
        if not self.questions:
            return f"defaults kept ({chosen}): too few examples to calibrate on"
        verdict = "calibrated" if self.changed else "defaults kept"
        return (
            f"{verdict} ({chosen}) on {self.questions} examples: coverage {self.default_score:.3f} with the "
            f"defaults, {self.best_score:.3f} with the best setting (standard error {self.standard_error:.3f})"
        )


def calibrate(
    index: ExampleIndex,
    *,
    k: int = 5,
    max_questions: int = MAX_QUESTIONS,
    seed: int = 0,
) -> Calibration:
    """Choose the index's structure weights by leave-one-out over its own examples.

    Args:
        index: The index (its ``structure`` is the default the grid must beat).
        k: Examples shown per question (the prompt's).
        max_questions: Examples asked as questions at most.
        seed: Seed of the sample.

    Returns:
        The choice; apply it with ``index.with_structure(result.structure)``.
    """
    default = index.structure
    if index.ranking == "random":
        return Calibration(default, changed=False, questions=0)
    sample = _sample(index, max_questions, seed)
    if len(sample) < MIN_QUESTIONS:
        return Calibration(default, changed=False, questions=0)
    settings = [default] + [
        replace(default, cue=cue, diversity=diversity, need_cues=share)
        for cue, diversity, share in CALIBRATION_GRID
        if (cue, diversity, share) != (default.cue, default.diversity, default.need_cues)
    ]
    scores = [_scores(index.with_structure(weights), sample, k) for weights in settings]
    means = [statistics.fmean(per_question) for per_question in scores]
    best = max(range(len(settings)), key=lambda i: (means[i], -i))  # ties: the earlier, the defaults first
    gains = [b - d for b, d in zip(scores[best], scores[0], strict=True)]
    error = statistics.stdev(gains) / math.sqrt(len(gains)) if len(gains) > 1 else math.inf
    changed = best != 0 and statistics.fmean(gains) > error
    return Calibration(
        settings[best] if changed else default,
        changed=changed,
        questions=len(sample),
        default_score=means[0],
        best_score=means[best],
        standard_error=error,
    )


def _sample(index: ExampleIndex, most: int, seed: int) -> list[int]:
    """Up to ``most`` positions, seeded, of examples whose query shows a property or a feature.

    Drawn in a shuffled order and checked one by one, so that a large pool's queries are not all parsed.
    """
    order = list(range(len(index.examples)))
    random.Random(seed).shuffle(order)  # noqa: S311 - a reproducible sample, not a secret
    chosen: list[int] = []
    for position in order:
        gold = signature(index.examples[position].sparql)
        if gold.properties or gold.features:
            chosen.append(position)
            if len(chosen) == most:
                break
    return sorted(chosen)


def _scores(index: ExampleIndex, sample: Sequence[int], k: int) -> list[float]:
    """Per sampled example, its share of the objective: the mean of property and feature coverage.

    The objective is the coverage bench's: the mean over the questions with a property of their property
    coverage, and over those with a feature of their feature coverage, averaged. Each question's share
    is its part of that sum times the sample's size, so the shares' mean is the objective and their
    differences pair question by question (a per-question mean of the two would weigh properties more,
    since fewer questions have a feature).
    """
    properties: list[float | None] = []
    features: list[float | None] = []
    for position in sample:
        example = index.examples[position]
        gold = signature(example.sparql)
        shown = [signature(e.sparql) for e in index.examples_for(example.question, k, without=example.sparql)]
        properties.append(covered(gold.properties, [s.properties for s in shown]))
        features.append(covered(gold.features, [s.features for s in shown]))
    with_properties = sum(share is not None for share in properties) or 1
    with_features = sum(share is not None for share in features) or 1
    size = len(sample)
    return [
        size / 2 * ((p or 0.0) / with_properties + (f or 0.0) / with_features)
        for p, f in zip(properties, features, strict=True)
    ]

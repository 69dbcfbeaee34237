"""Measuring schema-aware grounding on gold queries, without an LLM.

For each gold query of a graph (see ``bench/grounding.py`` for the command):

* **retention**: every property use whose subject has declared types (a constant looked
  up directly, a variable through a sample of the entities it binds in the query's
  relevant part) is *retained* when the lookup of every sampled subject keeps the
  property; a use lost here is one the model could never have been shown;
* **reduction**: the share of an entity's outgoing properties its lookup hides, averaged
  over the looked-up entities;
* **false blocks**: gold queries the pre-execution check blocks although they return rows
  on the graph (must be none); a blocked gold query that matches nothing in the data (Spider's
  network_1 types ``:highschooler``, its data ``:high_schooler``) is a correct block,
  counted apart;
* **detection**: the gold query with one property swapped for one whose declared domain
  excludes the subject's types (seeded), blocked before execution;
* **tokens**: the compact lookup text against SPINACH's raw JSON of the same entity.

The tools are reached through :class:`GroundingProbe`, so the measurement is independent
of how lookup and execute are wired (and testable with a stand-in).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bench.grounding_eval.gold_patterns import PropertyUse, property_uses
from bench.grounding_eval.property_swap import PropertySwap, choose_swap
from bench.grounding_eval.tokens import count_tokens
from saga_kgqa.benchmarks.datasets import GoldQuestion
from saga_kgqa.errors import SagaError
from saga_kgqa.schema import CompatibilityMode, SchemaIndex
from saga_kgqa.state import TypeEvidence, TypeState, type_state_of

MODES: tuple[CompatibilityMode, ...] = ("subclass", "exact")


@dataclass(frozen=True, slots=True)
class LookupView:
    """What the measurement needs from one lookup of an entity.

    Attributes:
        entity: The entity IRI.
        types: Its declared types.
        kept: Outgoing properties the lookup shows.
        hidden: Outgoing properties the lookup hides.
        text: The observation the model would read.
    """

    entity: str
    types: frozenset[str]
    kept: frozenset[str]
    hidden: frozenset[str]
    text: str


class GroundingProbe(Protocol):
    """The tools and graph reads the measurement uses."""

    def lookup(self, entity: str, mode: CompatibilityMode) -> LookupView:
        """Look an entity up with the given compatibility mode."""
        ...

    def subjects(self, use: PropertyUse, limit: int) -> list[str]:
        """Sample up to ``limit`` entities a variable subject binds in the query's relevant part."""
        ...

    def blocked(
        self, sparql: str, theta: TypeState, mode: CompatibilityMode, *, vacuous: bool = False
    ) -> tuple[str, ...]:
        """The patterns the pre-execution check blocks (empty: the query would run).

        The type check's blocks; with ``vacuous``, also the required patterns the graph
        cannot match.
        """
        ...

    def matches_nothing(self, sparql: str) -> bool:
        """Whether a query returns no rows (or only zero counts) on the graph; ``False`` when unknown."""
        ...

    def raw_neighbourhood(self, entity: str) -> tuple[str, int]:
        """SPINACH's JSON of the entity and its number of values."""
        ...


@dataclass(frozen=True, slots=True)
class LostUse:
    """A gold property the lookup of its subject hid (a retention failure)."""

    qid: str
    subject: str
    property_iri: str
    subject_types: frozenset[str]


@dataclass(slots=True)
class ModeTally:
    """Counts for one compatibility mode.

    Attributes:
        typed_uses: Property uses with at least one typed sampled subject.
        retained_uses: Those whose property every typed subject's lookup keeps.
        lost: The others, for the report.
        hidden_shares: Per looked-up entity, the share of its outgoing properties hidden.
        false_blocks: Gold queries the check blocked although they return rows, with the
            blocked patterns.
        empty_gold_blocks: Gold queries the check blocked that match nothing in the graph
            (correct blocks), with the blocked patterns.
        swaps: Queries with a property swapped.
        detected: Swapped queries blocked, Θ holding the sampled types of the query's variables.
        detected_without_trace: Swapped queries blocked with an empty Θ.
        missed: Swaps not blocked (with Θ), for the report.
    """

    typed_uses: int = 0
    retained_uses: int = 0
    lost: list[LostUse] = field(default_factory=list)
    hidden_shares: list[float] = field(default_factory=list)
    false_blocks: dict[str, tuple[str, ...]] = field(default_factory=dict)
    empty_gold_blocks: dict[str, tuple[str, ...]] = field(default_factory=dict)
    swaps: int = 0
    detected: int = 0
    detected_without_trace: int = 0
    missed: list[PropertySwap] = field(default_factory=list)

    @property
    def retention(self) -> float | None:
        """Share of typed uses retained (``None`` with no typed use)."""
        return self.retained_uses / self.typed_uses if self.typed_uses else None

    @property
    def reduction(self) -> float | None:
        """Mean share of outgoing properties hidden per looked-up entity."""
        return sum(self.hidden_shares) / len(self.hidden_shares) if self.hidden_shares else None

    @property
    def detection(self) -> float | None:
        """Share of swapped queries blocked, with variable types from sampled results in Θ."""
        return self.detected / self.swaps if self.swaps else None

    @property
    def detection_without_trace(self) -> float | None:
        """Share of swapped queries blocked knowing only the query's own type patterns and constants."""
        return self.detected_without_trace / self.swaps if self.swaps else None


@dataclass(frozen=True, slots=True)
class TokenSample:
    """Token counts of one looked-up entity."""

    entity: str
    values: int
    compact_tokens: int
    raw_tokens: int


@dataclass(slots=True)
class GraphMeasurement:
    """Everything measured on one graph.

    Attributes:
        graph: The graph's name.
        questions: Gold questions measured.
        uses: Property uses found in their queries.
        untyped_uses: Uses whose sampled subjects have no declared type (nothing to filter by).
        unsampled_uses: Uses whose subject binds no IRI in the graph (empty part, blank nodes).
        no_swap: Queries with no typed subject that a declared domain excludes.
        errors: Questions that could not be measured, with the reason.
        notes: Remarks from the probe (sampling queries that timed out, ...).
        modes: Counts per compatibility mode.
        tokens: Token counts of every looked-up entity.
    """

    graph: str
    questions: int = 0
    uses: int = 0
    untyped_uses: int = 0
    unsampled_uses: int = 0
    no_swap: int = 0
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    modes: dict[CompatibilityMode, ModeTally] = field(default_factory=lambda: {m: ModeTally() for m in MODES})
    tokens: list[TokenSample] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class MeasureSettings:
    """Knobs of a measurement.

    Attributes:
        samples: Entities sampled per variable subject.
        seed: Seed of the property swaps.
        prefixes: Prefixes assumed by the gold queries.
    """

    samples: int = 5
    seed: int = 0
    prefixes: dict[str, str] = field(default_factory=dict)


def measure_graph(
    graph: str,
    questions: Iterable[GoldQuestion],
    probe: GroundingProbe,
    schema: SchemaIndex,
    settings: MeasureSettings | None = None,
) -> GraphMeasurement:
    """Measure retention, reduction, false blocks, detection and tokens on one graph.

    Args:
        graph: The graph's name.
        questions: Its gold questions.
        probe: The tools under measurement.
        schema: The graph's schema index (for choosing property swaps).
        settings: Samples, seed and prefixes.

    Returns:
        The measurement; a question that fails (unparsable query, backend error) is
        recorded in ``errors`` and counted in no metric.
    """
    settings = settings or MeasureSettings()
    result = GraphMeasurement(graph=graph)
    looked_up: dict[tuple[str, CompatibilityMode], LookupView] = {}
    for question in questions:
        result.questions += 1
        try:
            _measure_question(question, probe, schema, settings, result, looked_up)
        except (SagaError, ValueError) as exc:  # ValueError: a swap that found no property to rewrite
            result.errors.append(f"{question.qid}: {type(exc).__name__}: {exc}")
    for (entity, mode), view in looked_up.items():
        total = len(view.kept) + len(view.hidden)
        if total:
            result.modes[mode].hidden_shares.append(len(view.hidden) / total)
        if mode == "subclass":
            raw, values = probe.raw_neighbourhood(entity)
            result.tokens.append(TokenSample(entity, values, count_tokens(view.text), count_tokens(raw)))
    return result


def _measure_question(
    question: GoldQuestion,
    probe: GroundingProbe,
    schema: SchemaIndex,
    settings: MeasureSettings,
    result: GraphMeasurement,
    looked_up: dict[tuple[str, CompatibilityMode], LookupView],
) -> None:
    uses = property_uses(question.sparql, type_predicates=schema.type_predicates, prefixes=settings.prefixes)
    sampled: dict[str, list[str]] = {}
    for use in uses:
        if use.subject not in sampled:
            sampled[use.subject] = probe.subjects(use, settings.samples) if use.subject_is_variable else [use.subject]
    subject_types: dict[str, frozenset[str]] = {}
    for use in uses:
        result.uses += 1
        entities = sampled[use.subject]
        if not entities:
            result.unsampled_uses += 1
            continue
        for mode in MODES:
            views = [_lookup(entity, mode, probe, looked_up) for entity in entities]
            typed = [view for view in views if view.types]
            if mode == MODES[0]:
                subject_types[use.subject] = frozenset(t for view in typed for t in view.types)
                if not typed:
                    result.untyped_uses += 1
            if typed:
                _tally_retention(question.qid, use, typed, schema, mode, result.modes[mode])
    # Θ as an agent that executed the query's parts holds it, and an empty Θ (the query's
    # own type patterns and its constants' declared types are all the check knows).
    thetas = (_trace_state(subject_types), TypeState())
    empty: bool | None = None
    for mode in MODES:
        blocked = tuple(
            pattern for theta in thetas for pattern in probe.blocked(question.sparql, theta, mode, vacuous=True)
        )
        if blocked:
            empty = probe.matches_nothing(question.sparql) if empty is None else empty
            tally = result.modes[mode]
            (tally.empty_gold_blocks if empty else tally.false_blocks)[question.qid] = blocked
    rng = random.Random(f"{settings.seed}:{question.qid}")
    swap = choose_swap(question, uses, subject_types, schema, rng, prefixes=settings.prefixes)
    if swap is None:
        result.no_swap += 1
        return
    for mode in MODES:
        tally = result.modes[mode]
        tally.swaps += 1
        if probe.blocked(swap.sparql, thetas[0], mode):
            tally.detected += 1
        else:
            tally.missed.append(swap)
        if probe.blocked(swap.sparql, thetas[1], mode):
            tally.detected_without_trace += 1


def _lookup(
    entity: str,
    mode: CompatibilityMode,
    probe: GroundingProbe,
    looked_up: dict[tuple[str, CompatibilityMode], LookupView],
) -> LookupView:
    key = (entity, mode)
    if key not in looked_up:
        looked_up[key] = probe.lookup(entity, mode)
    return looked_up[key]


def _tally_retention(
    qid: str,
    use: PropertyUse,
    typed: Sequence[LookupView],
    schema: SchemaIndex,
    mode: CompatibilityMode,
    tally: ModeTally,
) -> None:
    tally.typed_uses += 1
    lost = [view for view in typed if not _keeps(view, use.property_iri, schema, mode)]
    if not lost:
        tally.retained_uses += 1
        return
    types = frozenset(t for view in lost for t in view.types)
    tally.lost.append(LostUse(qid, use.subject, use.property_iri, types))


def _keeps(view: LookupView, property_iri: str, schema: SchemaIndex, mode: CompatibilityMode) -> bool:
    """Whether this lookup shows the property; one the entity lacks is judged by the filter's rule."""
    if property_iri in view.hidden:
        return False
    if property_iri in view.kept:
        return True
    return schema.compatibility(view.types, property_iri, mode=mode).keeps


def _trace_state(subject_types: dict[str, frozenset[str]]) -> TypeState:
    """Θ as an agent that ran the query's parts would hold it: sampled types of its variables."""
    return type_state_of(
        {
            key: [TypeEvidence(type_iri=t, provenance="trace", detail="sampled bindings") for t in sorted(types)]
            for key, types in subject_types.items()
            if key.startswith("?") and not key.startswith("?_")
        }
    )

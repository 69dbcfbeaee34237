"""The grounding measurement on a stand-in probe: what counts as retained, hidden, blocked, detected."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.grounding_eval.gold_patterns import PropertyUse
from bench.grounding_eval.measurement import LookupView, MeasureSettings, measure_graph

from saga_kgqa.benchmarks.datasets import GoldQuestion
from saga_kgqa.schema import ClassInfo, CompatibilityMode, PropertySchema, SchemaIndex
from saga_kgqa.state import TypeState

EX = "http://example.org/"
PREFIXES = {"ex": EX}


def _schema() -> SchemaIndex:
    classes = {
        EX + "Agent": ClassInfo(iri=EX + "Agent"),
        EX + "Employee": ClassInfo(iri=EX + "Employee", parents=frozenset({EX + "Agent"})),
        EX + "Product": ClassInfo(iri=EX + "Product"),
    }
    domains = {"name": "Agent", "memberOf": "Agent", "salary": "Employee", "price": "Product", "weight": "Product"}
    properties = {
        EX + p: PropertySchema(iri=EX + p, domain=frozenset({EX + d}), domain_source="formal")
        for p, d in domains.items()
    }
    return SchemaIndex(properties=properties, classes=classes)


SCHEMA = _schema()
# entity -> (types, outgoing properties)
GRAPH = {
    EX + "e1": ({EX + "Employee"}, {EX + "name", EX + "memberOf", EX + "salary"}),
    EX + "e2": ({EX + "Employee"}, {EX + "name"}),
    EX + "x": (set(), {EX + "name"}),
}


@dataclass
class StandInProbe:
    """Filters like lookup (schema compatibility) and blocks swapped properties by name."""

    blocks: set[str] = field(default_factory=lambda: {EX + "price", EX + "weight"})
    unused: set[str] = field(default_factory=set)
    empty: set[str] = field(default_factory=set)
    checks: list[tuple[str, int, CompatibilityMode]] = field(default_factory=list)

    def lookup(self, entity: str, mode: CompatibilityMode) -> LookupView:
        types, props = GRAPH[entity]
        hidden = {p for p in props if not SCHEMA.compatibility(types, p, mode=mode).keeps}
        return LookupView(entity, frozenset(types), frozenset(props - hidden), frozenset(hidden), f"{entity} {props}")

    def subjects(self, use: PropertyUse, limit: int) -> list[str]:
        return [e for e, (_t, props) in GRAPH.items() if use.property_iri in props][:limit]

    def blocked(
        self, sparql: str, theta: TypeState, mode: CompatibilityMode, *, vacuous: bool = False
    ) -> tuple[str, ...]:
        self.checks.append((sparql, len(theta), mode))
        found = tuple(p for p in self.blocks if f"<{p}>" in sparql or p.replace(EX, "ex:") in sparql)
        unmatched = tuple(p for p in self.unused if p.replace(EX, "ex:") in sparql) if vacuous else ()
        return found + unmatched

    def matches_nothing(self, sparql: str) -> bool:
        return any(p.replace(EX, "ex:") in sparql for p in self.empty)

    def raw_neighbourhood(self, entity: str) -> tuple[str, int]:
        return "{" + ", ".join(sorted(GRAPH[entity][1])) + "}", len(GRAPH[entity][1])


def _q(n: int, body: str) -> GoldQuestion:
    return GoldQuestion(f"t:{n}", "t", f"question {n}", f"PREFIX ex: <{EX}> SELECT * WHERE {{ {body} }}")


def test_subclass_mode_retains_what_exact_mode_hides() -> None:
    result = measure_graph("t", [_q(1, "?e ex:name ?n")], StandInProbe(), SCHEMA, MeasureSettings(prefixes=PREFIXES))
    subclass, exact = result.modes["subclass"], result.modes["exact"]
    # ?e samples e1, e2 (typed) and x (untyped, ignored); name's domain is Agent, a superclass.
    assert (subclass.typed_uses, subclass.retained_uses) == (1, 1)
    assert (exact.typed_uses, exact.retained_uses) == (1, 0)
    assert exact.lost[0].property_iri == EX + "name"
    assert exact.lost[0].subject_types == {EX + "Employee"}
    assert subclass.reduction == 0.0
    # exact: e1 hides name and memberOf (2 of 3), e2 hides name (1 of 1); x has no types.
    assert exact.reduction == (2 / 3 + 1 + 0) / 3


def test_constant_subjects_are_looked_up_without_sampling() -> None:
    result = measure_graph("t", [_q(1, "ex:e2 ex:name ?n")], StandInProbe(), SCHEMA, MeasureSettings(prefixes=PREFIXES))
    assert result.modes["subclass"].typed_uses == 1
    assert {sample.entity for sample in result.tokens} == {EX + "e2"}


def test_untyped_and_unsampled_subjects_are_counted_apart() -> None:
    questions = [_q(1, "?s ex:price ?p"), _q(2, "ex:x ex:name ?n")]
    result = measure_graph("t", questions, StandInProbe(), SCHEMA, MeasureSettings(prefixes=PREFIXES))
    assert (result.uses, result.unsampled_uses, result.untyped_uses) == (2, 1, 1)
    assert result.modes["subclass"].typed_uses == 0
    assert result.modes["subclass"].retention is None


def test_a_swap_to_a_conflicting_property_is_detected_and_gold_queries_are_not_blocked() -> None:
    probe = StandInProbe()
    result = measure_graph("t", [_q(1, "?e ex:salary ?s")], probe, SCHEMA, MeasureSettings(prefixes=PREFIXES))
    tally = result.modes["subclass"]
    assert tally.false_blocks == {}
    assert (tally.swaps, tally.detected, tally.detected_without_trace) == (1, 1, 1)
    swapped = [sparql for sparql, _n, _m in probe.checks if "ex:salary" not in sparql]
    assert len(swapped) == 4  # two modes, two Θ variants
    # Both Θ variants were offered: one with the sampled types of ?e, one empty.
    assert {n for _s, n, _m in probe.checks} == {0, 1}


def test_a_gold_query_the_check_blocks_is_a_false_block() -> None:
    probe = StandInProbe(blocks={EX + "salary"})
    result = measure_graph("t", [_q(1, "?e ex:salary ?s")], probe, SCHEMA, MeasureSettings(prefixes=PREFIXES))
    assert set(result.modes["exact"].false_blocks) == {"t:1"}


def test_a_gold_query_blocked_for_a_pattern_that_matches_nothing_is_a_false_block_too() -> None:
    probe = StandInProbe(blocks=set(), unused={EX + "memberOf"})
    result = measure_graph("t", [_q(1, "?e ex:memberOf ?s")], probe, SCHEMA, MeasureSettings(prefixes=PREFIXES))
    assert set(result.modes["subclass"].false_blocks) == {"t:1"}


def test_a_blocked_gold_query_that_matches_nothing_is_counted_apart() -> None:
    probe = StandInProbe(blocks=set(), unused={EX + "memberOf"}, empty={EX + "memberOf"})
    result = measure_graph("t", [_q(1, "?e ex:memberOf ?s")], probe, SCHEMA, MeasureSettings(prefixes=PREFIXES))
    assert result.modes["subclass"].false_blocks == {}
    assert set(result.modes["subclass"].empty_gold_blocks) == {"t:1"}


def test_a_missed_swap_is_recorded() -> None:
    probe = StandInProbe(blocks=set())
    result = measure_graph("t", [_q(1, "?e ex:salary ?s")], probe, SCHEMA, MeasureSettings(prefixes=PREFIXES))
    tally = result.modes["subclass"]
    assert tally.detection == 0.0
    assert tally.missed[0].original == EX + "salary"
    assert tally.missed[0].replacement in {EX + "price", EX + "weight"}


def test_the_swap_draw_is_reproducible_for_a_seed() -> None:
    def replacements(seed: int) -> list[str]:
        probe = StandInProbe(blocks=set())
        settings = MeasureSettings(prefixes=PREFIXES, seed=seed)
        result = measure_graph("t", [_q(n, "?e ex:salary ?s") for n in range(5)], probe, SCHEMA, settings)
        return [swap.sparql for swap in result.modes["subclass"].missed]

    assert replacements(3) == replacements(3)
    assert len({tuple(replacements(seed)) for seed in range(4)}) > 1


def test_an_unparsable_gold_query_is_an_error_not_a_metric() -> None:
    bad = GoldQuestion("t:9", "t", "q", "SELECT WHERE {")
    result = measure_graph("t", [bad], StandInProbe(), SCHEMA, MeasureSettings(prefixes=PREFIXES))
    assert result.errors and result.errors[0].startswith("t:9")
    assert result.uses == 0


def test_token_samples_count_both_renderings() -> None:
    result = measure_graph("t", [_q(1, "ex:e1 ex:name ?n")], StandInProbe(), SCHEMA, MeasureSettings(prefixes=PREFIXES))
    (sample,) = result.tokens
    assert sample.values == 3
    assert sample.compact_tokens > 0 and sample.raw_tokens > 0

import copy

from saga_kgqa.kg.core.result import QueryResult, Term
from saga_kgqa.state import (
    ANSWER_KEY,
    TypeEvidence,
    TypeState,
    answer_type_prior,
    declared_types,
    merge_type_state,
    trace_types,
    variable_key,
)

WD = "http://www.wikidata.org/entity/"


def _ev(type_iri: str, provenance: str = "declared", step: int | None = 1) -> TypeEvidence:
    return TypeEvidence(type_iri=type_iri, provenance=provenance, step=step)  # type: ignore[arg-type]


def test_merge_is_pure_and_returns_a_new_value() -> None:
    left = TypeState(entries={"?x": frozenset({_ev(WD + "Q5")})})
    right = TypeState(entries={"?x": frozenset({_ev(WD + "Q215627", "pattern", 2)}), "?y": frozenset({_ev("C")})})
    left_before, right_before = copy.deepcopy(left), copy.deepcopy(right)
    merged = merge_type_state(left, right)
    assert left == left_before and right == right_before
    assert merged is not left and merged is not right
    assert merged.entries is not left.entries
    assert merged.types_of("?x") == {WD + "Q5", WD + "Q215627"}
    assert merged.tracked() == ("?x", "?y")


def test_merge_deduplicates_identical_evidence_and_keeps_distinct_steps() -> None:
    state = TypeState(entries={"?x": frozenset({_ev("C", step=1)})})
    merged = merge_type_state(state, TypeState(entries={"?x": frozenset({_ev("C", step=1), _ev("C", step=4)})}))
    assert len(merged.evidence("?x")) == 2
    assert merged.types_of("?x") == {"C"}


def test_merge_handles_missing_sides() -> None:
    state = declared_types(WD + "Q42", [WD + "Q5"])
    assert merge_type_state(None, None) == TypeState()
    assert merge_type_state(None, state) == state
    assert merge_type_state(state, None) == state
    assert merge_type_state(TypeState(), state) == state
    assert merge_type_state(state, TypeState()) is not state


def test_merge_is_associative_on_types() -> None:
    a = declared_types("e:1", ["A"], step=1)
    b = declared_types("e:1", ["B"], step=2)
    c = declared_types("e:2", ["C"], step=3)
    assert merge_type_state(merge_type_state(a, b), c) == merge_type_state(a, merge_type_state(b, c))


def test_declared_types_from_a_lookup() -> None:
    state = declared_types(WD + "Q42", [WD + "Q5", WD + "Q36180"], step=3)
    assert state.types_of(WD + "Q42") == {WD + "Q5", WD + "Q36180"}
    assert {e.provenance for e in state.evidence(WD + "Q42")} == {"declared"}
    assert {e.step for e in state.evidence(WD + "Q42")} == {3}
    assert declared_types(WD + "Q1", []) == TypeState()


def test_trace_types_from_result_rows() -> None:
    result = QueryResult(
        form="SELECT",
        variables=["place", "n"],
        rows=[
            {"place": Term("uri", WD + "Q60"), "n": Term("literal", "3", datatype="x")},
            {"place": Term("uri", WD + "Q90")},
            {"place": Term("uri", WD + "Q999")},
        ],
    )
    types = {WD + "Q60": [WD + "Q515"], WD + "Q90": [WD + "Q515", WD + "Q5119"]}
    state = trace_types(result, types, step=5, detail="query 2")
    assert state.types_of("?place") == {WD + "Q515", WD + "Q5119"}
    assert state.types_of(WD + "Q60") == {WD + "Q515"}
    assert WD + "Q999" not in state and "?n" not in state
    assert {(e.provenance, e.step, e.detail) for e in state.evidence("?place")} == {("trace", 5, "query 2")}


def test_answer_type_prior() -> None:
    state = answer_type_prior(WD + "Q6256", label="country")
    assert state.answer_types() == {WD + "Q6256"}
    (item,) = state.evidence(ANSWER_KEY)
    assert (item.provenance, item.detail, item.step) == ("answer_prior", "country", 0)


def test_types_of_filters_by_provenance_and_normalises_variables() -> None:
    state = merge_type_state(
        TypeState(entries={"?x": frozenset({_ev("A", "pattern")})}),
        TypeState(entries={"?x": frozenset({_ev("B", "trace")})}),
    )
    assert state.types_of("?x", provenances=["pattern"]) == {"A"}
    assert state.types_of("x") == {"A", "B"}
    assert state.types_of("$x") == {"A", "B"}
    assert state.types_of("?unknown") == frozenset()


def test_recent_orders_by_latest_step_and_skips_the_prior() -> None:
    state = merge_type_state(answer_type_prior("T", step=9), declared_types("e:old", ["A"], step=1))
    state = merge_type_state(state, declared_types("e:new", ["B"], step=4))
    state = merge_type_state(state, declared_types("e:old2", ["C"], step=2))
    assert [key for key, _ in state.recent(2)] == ["e:new", "e:old2"]
    assert [key for key, _ in state.recent(10)] == ["e:new", "e:old2", "e:old"]


def test_variable_key() -> None:
    assert variable_key("x") == "?x"
    assert variable_key("$x") == "?x"
    assert variable_key("?x") == "?x"
    assert variable_key(WD + "Q5") == WD + "Q5"
    assert variable_key(ANSWER_KEY) == ANSWER_KEY


def test_state_survives_a_json_round_trip() -> None:
    state = merge_type_state(declared_types(WD + "Q42", [WD + "Q5"], step=1), answer_type_prior(WD + "Q5"))
    assert TypeState.model_validate_json(state.model_dump_json()) == state

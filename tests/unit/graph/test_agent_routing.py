"""Routers never raise and route malformed state to finalize; actions are validated (faults D3, E4)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage

from saga_kgqa.graph.actions import action_from_call, repeated_step, tool_schemas
from saga_kgqa.graph.llm_nodes import native_action, text_action
from saga_kgqa.graph.routing import route_action, route_after_check, route_after_lookup
from saga_kgqa.state import Action, PruneRequest, Step


def _action(tool: str, argument: str = "x", problem: str | None = None) -> Action:
    return Action(tool=tool, argument=argument, call_id="c", problem=problem)


@pytest.mark.parametrize(
    "state",
    [
        {},
        {"pending_action": None},
        {"pending_action": "lookup"},
        {"pending_action": {"tool": "lookup"}},
        {"pending_action": 42, "stop_reason": None},
        {"stop_reason": "max_steps", "pending_action": _action("lookup")},
    ],
)
def test_route_action_sends_malformed_or_finished_state_to_finalize(state: dict[str, Any]) -> None:
    assert route_action(state) == "finalize"


def test_route_action_survives_a_state_that_is_not_a_mapping() -> None:
    assert route_action(None) == "finalize"  # type: ignore[arg-type]
    assert route_after_lookup([]) == "finalize"  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("action", "route"),
    [
        (_action("search"), "search"),
        (_action("lookup"), "lookup"),
        (_action("examples"), "examples"),
        (_action("execute"), "execute"),
        (_action("stop", ""), "check_answer"),
        (_action("lookup", problem="repeat"), "refuse_action"),
        (_action("drop_all"), "refuse_action"),
    ],
)
def test_route_action_follows_the_chosen_tool(action: Action, route: str) -> None:
    assert route_action({"pending_action": action}) == route


def test_route_after_lookup() -> None:
    request = PruneRequest(step=1, argument="e", entity="e", head="h", lines=(("p", "- p"),))
    assert route_after_lookup({"prune_request": request}) == "prune_fallback"
    assert route_after_lookup({"prune_request": None}) == "controller"
    assert route_after_lookup({}) == "controller"


def test_valid_calls_become_actions() -> None:
    action = action_from_call("execute", {"sparql": "  ASK {}  "}, call_id="c1", thought="t")
    assert (action.tool, action.argument, action.problem, action.thought) == ("execute", "ASK {}", None, "t")
    assert action_from_call("stop", {}, call_id="c2").problem is None


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("drop", {"x": "y"}, "Unknown tool 'drop'. Valid tools: search(text), lookup(entity), examples(property)"),
        ("execute", {"sparql": "ASK {}", "endpoint_url": "http://evil"}, "'endpoint_url' is not accepted"),
        ("execute", {"sparql": "ASK {}", "service": "x"}, "no URL can be given"),
        ("lookup", {"entity": "a", "depth": 3}, "unexpected argument(s) depth"),
        ("lookup", {}, "the argument 'entity' must be a non-empty string"),
        ("lookup", {"entity": 5}, "the argument 'entity' must be a non-empty string"),
        ("search", "Berlin", "its arguments must be a JSON object"),
        ("stop", {"now": "yes"}, "unexpected argument(s) now"),
    ],
)
def test_bad_calls_carry_a_problem_naming_valid_tools(name: str, args: object, expected: str) -> None:
    action = action_from_call(name, args, call_id="c")
    assert action.problem is not None and expected in action.problem
    assert "Valid tools:" in action.problem


def test_native_replies_without_a_usable_call() -> None:
    bad_json = AIMessage("", invalid_tool_calls=[{"name": "execute", "args": "{oops", "id": "1", "error": "bad"}])
    assert "not valid JSON" in (native_action(bad_json, call_id="c").problem or "")
    assert "called no tool" in (native_action(AIMessage("just text"), call_id="c").problem or "")
    two = AIMessage(
        "",
        tool_calls=[
            {"name": "search", "args": {"text": "a"}, "id": "1", "type": "tool_call"},
            {"name": "lookup", "args": {"entity": "b"}, "id": "2", "type": "tool_call"},
        ],
    )
    first = native_action(two, call_id="c")
    assert first.tool == "search" and first.problem is None and "ignored: lookup" in first.thought


def test_text_actions_from_the_parsing_call() -> None:
    assert text_action(None, call_id="c").problem is not None
    action = text_action({"thought": "t", "action_name": "lookup", "action_argument": "ex:a"}, call_id="c")
    assert (action.tool, action.argument, action.problem) == ("lookup", "ex:a", None)
    assert "Unknown tool" in (text_action({"action_name": "sql"}, call_id="c").problem or "")


def test_repeats_are_found_up_to_spacing_and_refusals_do_not_count() -> None:
    history = [
        Step(step=1, tool="execute", argument="SELECT ?x  WHERE {}", observation="o", outcome="empty"),
        Step(step=2, tool="lookup", argument="ex:a", observation="o", outcome="refused"),
    ]
    found = repeated_step(history, _action("execute", "SELECT ?x WHERE {}"))
    assert found is not None and found.step == 1
    assert repeated_step(history, _action("lookup", "ex:a")) is None
    assert repeated_step(history, _action("execute", "SELECT ?y WHERE {}")) is None


def test_tool_schemas_forbid_extra_arguments() -> None:
    schemas = {s["function"]["name"]: s["function"]["parameters"] for s in tool_schemas()}
    assert list(schemas) == ["search", "lookup", "examples", "execute", "stop"]
    assert all(p["additionalProperties"] is False for p in schemas.values())
    assert schemas["execute"]["required"] == ["sparql"] and schemas["stop"]["required"] == []


def test_after_the_answer_checks_a_standing_stop_finalizes_and_a_cleared_one_continues() -> None:
    assert route_after_check({"stop_reason": "stop"}) == "finalize"
    assert route_after_check({"stop_reason": ""}) == "controller"
    assert route_after_check({"stop_reason": "max_steps"}) == "finalize"


def test_a_routed_node_returns_its_delta_and_the_routers_choice_on_the_state_after_it() -> None:
    from saga_kgqa.graph.builder import routed

    def stopping(_state: Any, _runtime: Any) -> dict[str, Any]:
        return {"pending_action": _action("stop"), "stop_reason": "stop", "steps": 1}

    def looking(_state: Any, _runtime: Any) -> dict[str, Any]:
        return {"pending_action": _action("lookup"), "steps": 1}

    earlier = {"pending_action": _action("search"), "steps": 3}
    command = routed(stopping, route_action)(earlier, None)  # type: ignore[arg-type]
    assert command.goto == "check_answer" and command.update == stopping(None, None)
    assert routed(looking, route_action)(earlier, None).goto == "lookup"  # type: ignore[arg-type]
    # A key the delta leaves alone is read from the state: a stop reason written before still ends the loop.
    assert routed(looking, route_action)({**earlier, "stop_reason": "max_steps"}, None).goto == "finalize"  # type: ignore[arg-type]
    prune = PruneRequest(step=1, argument="e", entity="e", head="h", lines=(("p", "- p"),))
    assert routed(lambda _s, _r: {"prune_request": prune}, route_after_lookup)({}, None).goto == "prune_fallback"  # type: ignore[arg-type]
    assert routed(lambda _s, _r: {"prune_request": None}, route_after_lookup)({"prune_request": prune}, None).goto == (  # type: ignore[arg-type]
        "controller"
    )

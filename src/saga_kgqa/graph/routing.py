"""Pure routers: they read the state, return a node name, do no I/O and never raise.

A router that raises can make a resumed run skip routing and end "successfully"
(langgraph#8834), so every unexpected state, malformed or not, routes to ``finalize``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from saga_kgqa.state import Action

ActionRoute = Literal[
    "search",
    "lookup",
    "patterns",
    "examples",
    "worked_examples",
    "execute",
    "find_sources",
    "summary",
    "resolve",
    "expand",
    "bridge",
    "execute_on",
    "join",
    "refuse_action",
    "check_answer",
    "finalize",
]
CheckRoute = Literal["controller", "finalize"]
LookupRoute = Literal["prune_fallback", "controller", "finalize"]

_TOOL_NODES: dict[str, ActionRoute] = {
    "search": "search",
    "lookup": "lookup",
    "patterns": "patterns",
    "examples": "examples",
    "worked_examples": "worked_examples",
    "execute": "execute",
    "find_sources": "find_sources",
    "summary": "summary",
    "resolve": "resolve",
    "expand": "expand",
    "bridge": "bridge",
    "execute_on": "execute_on",
    "join": "join",
}


def route_action(state: Mapping[str, Any]) -> ActionRoute:
    """After the controller: the chosen tool's node, ``refuse_action``, or ``finalize`` (stop or budget)."""
    try:
        action = state.get("pending_action")
        if state.get("stop_reason") == "stop" and isinstance(action, Action) and action.tool == "stop":
            return "check_answer"
        if state.get("stop_reason"):
            return "finalize"
        if not isinstance(action, Action):
            return "finalize"
        if action.problem is not None:
            return "refuse_action"
        if action.tool == "stop":
            return "check_answer"
        return _TOOL_NODES.get(action.tool, "refuse_action")
    except Exception:
        return "finalize"


def route_after_lookup(state: Mapping[str, Any]) -> LookupRoute:
    """After lookup: the prune fallback when a prune request is waiting, else back to the controller."""
    try:
        return "prune_fallback" if state.get("prune_request") is not None else "controller"
    except Exception:
        return "finalize"


def route_after_check(state: Mapping[str, Any]) -> CheckRoute:
    """After the answer checks: ``finalize`` when the stop stands, else back to the controller."""
    try:
        return "finalize" if state.get("stop_reason") else "controller"
    except Exception:
        return "finalize"

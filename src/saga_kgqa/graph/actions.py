"""The controller's actions: tool schemas for native tool calling, and validation of what the model chose.

Every tool takes one string argument (``stop`` none). Whatever the model sends, the
result is an :class:`~saga_kgqa.state.Action`; an action that cannot run carries a
``problem`` that names the valid tools and arguments, and is answered with that message
instead of running (docs/faults.md D3). The endpoint is fixed by configuration: an
``endpoint_url`` (or any URL-like) argument is refused outright.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from saga_kgqa.state import Action, Step

#: Each tool's argument name (``None``: no argument) and description.
TOOL_ARGUMENTS: dict[str, str | None] = {
    "search": "text",
    "lookup": "entity",
    "patterns": "entity",
    "examples": "property",
    "worked_examples": "question",
    "execute": "sparql",
    # Source tools (offered only when the run grounds over named sources): "SOURCE: ..." arguments.
    "find_sources": "text",
    "summary": "source",
    "resolve": "request",
    "expand": "request",
    "bridge": "sources",
    "execute_on": "request",
    "join": "request",
    "stop": None,
}

#: The tools that ground over named sources (:mod:`saga_kgqa.graph.source_tools`).
SOURCE_TOOLS = ("find_sources", "summary", "resolve", "expand", "bridge", "execute_on", "join")
#: The source grounding tools the single-shot switch limits to one call per question (execution is not one).
SINGLE_SHOT_TOOLS = ("find_sources", "summary", "resolve", "expand", "bridge")

_DESCRIPTIONS = {
    "search": ("Find entities, classes and properties whose names match a text.", "A name or part of one."),
    "lookup": (
        "Show an entity's types and its outgoing properties that fit those types, with range and a few values "
        "(a domain only where it was not checked).",
        "The entity id as shown by search (prefixed name or <IRI>).",
    ),
    "patterns": (
        "Show an entity's triple patterns (outgoing and incoming properties) ranked for the question, with counts, "
        "a few instances, domain and range; patterns whose property conflicts with its types are hidden.",
        "The entity id as shown by search (prefixed name or <IRI>).",
    ),
    "examples": ("Show a few real uses of a property.", "The property id."),
    "worked_examples": (
        "Show question-query pairs published for this graph (or from a train split), nearest to a question first. "
        "They show the graph's vocabulary and query shapes; check every IRI before you use it.",
        "A question, in your own words or the user's.",
    ),
    "execute": (
        "Run a SPARQL query and show a truncated result; an empty result comes with a diagnosis.",
        "The whole SPARQL query.",
    ),
    "find_sources": ("Find the configured sources whose title, description or schema match a text.", "Words."),
    "summary": (
        "Show a source's surveyed schema: classes, predicates with object kinds and types, examples, graphs.",
        "The source name from the catalog.",
    ),
    "resolve": ("Map a name or identifier to stable IRIs of one source.", "'SOURCE: name', e.g. 'ck25: Karen Brant'."),
    "expand": (
        "Show an entity's outgoing and incoming relation paths in one source, one hop through intermediate nodes.",
        "'SOURCE: entity', e.g. 'ck25: <http://...>'.",
    ),
    "bridge": (
        "Find candidate joins between two sources (same IRIs, shared identifier values, shared properties) "
        "with a two-step query plan.",
        "'LEFT: RIGHT', the two source names.",
    ),
    "execute_on": (
        "Run a SPARQL query on one named source and show a truncated result.",
        "'SOURCE: the whole SPARQL query'.",
    ),
    "join": (
        "Run query 1 on one source, bind its key values into query 2 on another (in that source's form: "
        "strings, padded codes, doubles) and show the joined rows; the answer is query 2's columns.",
        "'LEFT: query 1 ==> RIGHT: query 2', both naming the key variable (e.g. ?key).",
    ),
    "stop": ("Mark the last executed SPARQL query as the final answer and end.", ""),
}

_URL_ARGUMENTS = re.compile(r"(endpoint|url|uri|service|host)", re.IGNORECASE)
_SPACES = re.compile(r"\s+")


def enabled_tools(
    grounding: str = "lookup", *, sources: bool = False, find: bool = False, examples: bool = False
) -> tuple[str, ...]:
    """The tools of a run.

    Args:
        grounding: The ``grounding_tools`` switch (``lookup``, ``patterns`` or ``both``).
        sources: Whether the source tools are offered (:func:`saga_kgqa.graph.source_tools.source_mode`).
        find: Whether ``find_sources`` is among them (many sources; with few the catalog is in the prompt).
        examples: Whether ``worked_examples`` is offered (an examples file is configured,
            :func:`saga_kgqa.examples.serving.examples_offered`).
    """
    off = {"lookup": "patterns", "patterns": "lookup"}.get(grounding)
    hidden = {off} if off else set()
    if not examples:
        hidden.add("worked_examples")
    if not sources:
        hidden |= set(SOURCE_TOOLS)
    elif not find:
        hidden.add("find_sources")
    return tuple(name for name in TOOL_ARGUMENTS if name not in hidden)


def tool_signatures(names: Sequence[str] | None = None) -> str:
    """The valid tools as ``name(argument)``, for error messages."""
    names = enabled_tools() if names is None else names
    return ", ".join(f"{name}({TOOL_ARGUMENTS[name] or ''})" for name in names)


def tool_schemas(names: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """OpenAI-format function schemas of the tools (by default lookup's set), for ``bind_tools``."""
    schemas: list[dict[str, Any]] = []
    for name in enabled_tools() if names is None else names:
        arg = TOOL_ARGUMENTS[name]
        description, arg_description = _DESCRIPTIONS[name]
        properties = {arg: {"type": "string", "description": arg_description}} if arg else {}
        schemas.append(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": description,
                    "parameters": {
                        "type": "object",
                        "properties": properties,
                        "required": [arg] if arg else [],
                        "additionalProperties": False,
                    },
                },
            }
        )
    return schemas


def action_from_call(name: str, args: object, *, call_id: str, thought: str = "") -> Action:
    """Validate one tool call and turn it into an action (with a ``problem`` when it cannot run)."""
    action = Action(tool=str(name)[:80], call_id=call_id, thought=thought)
    if name not in TOOL_ARGUMENTS:
        return action.model_copy(
            update={"problem": f"Unknown tool {str(name)[:80]!r}. Valid tools: {tool_signatures()}."}
        )
    expected = TOOL_ARGUMENTS[name]
    if not isinstance(args, Mapping):
        return action.model_copy(update={"problem": _usage(name, "its arguments must be a JSON object")})
    url_like = sorted(key for key in args if _URL_ARGUMENTS.search(str(key)))
    if url_like:
        problem = (
            f"The argument {url_like[0]!r} is not accepted: the endpoint is fixed by configuration "
            f"and no URL can be given. {_usage(name, '')}"
        )
        return action.model_copy(update={"problem": problem.strip()})
    extra = sorted(str(key) for key in args if key != expected)
    if extra:
        return action.model_copy(update={"problem": _usage(name, f"unexpected argument(s) {', '.join(extra)}")})
    if expected is None:
        return action
    value = args.get(expected)
    if not isinstance(value, str) or not value.strip():
        return action.model_copy(
            update={"problem": _usage(name, f"the argument {expected!r} must be a non-empty string")}
        )
    return action.model_copy(update={"argument": value.strip()})


def action_from_invalid_call(name: object, error: object, *, call_id: str) -> Action:
    """An action for a tool call whose arguments the provider could not parse (malformed JSON)."""
    tool = str(name or "")[:80]
    reason = f"its arguments are not valid JSON ({str(error or '')[:120]})".replace(" ()", "")
    problem = (
        _usage(tool, reason) if tool in TOOL_ARGUMENTS else f"Unknown tool {tool!r}. Valid tools: {tool_signatures()}."
    )
    return Action(tool=tool, call_id=call_id, problem=problem)


def missing_action(reason: str, *, call_id: str, thought: str = "") -> Action:
    """An action standing for a reply that chose no tool at all."""
    return Action(
        tool="",
        call_id=call_id,
        thought=thought,
        problem=f"{reason} Call exactly one tool per step. Valid tools: {tool_signatures()}.",
    )


def repeated_step(history: Sequence[Step], action: Action) -> Step | None:
    """The earlier step that ran exactly this action (same tool, same argument up to spacing), if any."""
    if action.problem is not None or action.tool == "stop":
        return None
    wanted = (action.tool, normalise_argument(action.argument))
    for step in reversed(history):
        if step.outcome != "refused" and (step.tool, normalise_argument(step.argument)) == wanted:
            return step
    return None


def single_shot_refusal(history: Sequence[Step], action: Action) -> str | None:
    """Why the single-shot switch refuses this action (a second call of one grounding tool), else ``None``."""
    if action.problem is not None or action.tool not in SINGLE_SHOT_TOOLS:
        return None
    for step in history:
        if step.tool == action.tool and step.outcome != "refused":
            return (
                f"Refused: single-shot mode allows one {action.tool} call per question and step {step.step} "
                "made it. Use what you have, or another tool."
            )
    return None


def normalise_argument(argument: str) -> str:
    """An argument with runs of whitespace collapsed, for comparing actions."""
    return _SPACES.sub(" ", argument).strip()


def _usage(name: str, reason: str) -> str:
    arg = TOOL_ARGUMENTS.get(name)
    head = f"Invalid call of {name}: {reason}." if reason else ""
    return f"{head} Usage: {name}({arg or ''}). Valid tools: {tool_signatures()}.".strip()

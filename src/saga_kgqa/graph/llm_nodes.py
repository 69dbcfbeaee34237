"""The nodes that call the model: answer-type prediction, the controller and the prune fallback.

Each returns a delta (never edits the state it was given) and counts its model calls and
tokens. A reply the graph cannot use never raises: it becomes an action with a
``problem`` the model is told about at the next step.
"""

from __future__ import annotations

import re
import threading
import weakref
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.runtime import Runtime

from saga_kgqa.config.context import SagaContext, resolve_context
from saga_kgqa.examples.serving import examples_offered
from saga_kgqa.graph.actions import (
    TOOL_ARGUMENTS,
    action_from_call,
    action_from_invalid_call,
    enabled_tools,
    missing_action,
    repeated_step,
    single_shot_refusal,
    tool_schemas,
    tool_signatures,
)
from saga_kgqa.graph.dependencies import GraphDependencies
from saga_kgqa.graph.model_calls import invoke_model, json_object, message_text
from saga_kgqa.graph.prompting import (
    answer_type_class_lines,
    answer_type_messages,
    controller_messages,
    parse_messages,
    prune_messages,
)
from saga_kgqa.graph.records import knowledge, step_record
from saga_kgqa.graph.source_tools import source_mode, source_prompt_lines
from saga_kgqa.state import Action, AnswerType, add_token_usage, answer_type_prior
from saga_kgqa.state.graph_state import SagaState, require_question
from saga_kgqa.state.records import AnswerKind
from saga_kgqa.text_safety import graph_text
from saga_kgqa.tools.toolbox import ToolView

_SCALAR_KINDS: dict[str, AnswerKind] = {
    "boolean": "boolean",
    "yes/no": "boolean",
    "quantity": "quantity",
    "number": "quantity",
    "count": "quantity",
    "date": "date",
    "year": "date",
    "time": "date",
}
_BARE_WIKIDATA_ID = re.compile(r"[QP]\d+")


class ModelNodes:
    """Nodes that call the chat model, bound to the graph's dependencies."""

    def __init__(self, dependencies: GraphDependencies) -> None:
        """Keep the factories."""
        self.dependencies = dependencies
        # The answer-type prompt's classes depend only on a view's schema and prefixes, which a view keeps
        # for its life: read once per view (about 1 ms of a run's CPU), not once per run.
        self._classes: weakref.WeakKeyDictionary[ToolView, tuple[str, ...]] = weakref.WeakKeyDictionary()
        self._classes_lock = threading.Lock()

    def _class_lines(self, view: ToolView) -> list[str]:
        """The answer-type prompt's class lines for ``view`` (computed on a view's first run)."""
        with self._classes_lock:
            found = self._classes.get(view)
        if found is None:
            found = tuple(answer_type_class_lines(view.schema, view.prefix_index))
            with self._classes_lock:
                self._classes[view] = found
        return list(found)

    def predict_answer_type(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Predict the expected answer type (Appendix F.1) and seed Θ's answer prior with it.

        With ``answer_type_prior`` off this node does nothing (no model call). It is the
        graph's first node, so it also refuses an empty question before any model call.

        Raises:
            ConfigurationError: The question is missing, empty or only whitespace.
        """
        require_question(state.get("question"))
        context = resolve_context(runtime.context)
        if not context.answer_type_prior:
            return {}
        model = self.dependencies.model_factory(context, "answer_type")
        classes: list[str] = []
        if context.dialect == "generic":
            classes = self._class_lines(self.dependencies.tools(context))
        reply, usage = invoke_model(model, answer_type_messages(state.get("question", ""), context, classes))
        answer_type = self._answer_type(json_object(message_text(reply)), context)
        delta: dict[str, Any] = {"answer_type": answer_type, "llm_calls": 1, "token_usage": usage}
        if answer_type is not None and answer_type.type_iri:
            delta["theta"] = answer_type_prior(answer_type.type_iri, label=answer_type.label)
        return delta

    def _answer_type(self, parsed: dict[str, Any] | None, context: SagaContext) -> AnswerType | None:
        if parsed is None:
            return None
        label = str(parsed.get("answer_type_label") or "").strip()[:60]
        type_id = str(parsed.get("answer_type_id") or parsed.get("answer_type_qid") or "").strip()[:200]
        if not label:
            return None
        kind = _SCALAR_KINDS.get(label.lower(), "entity" if type_id else "unknown")
        type_iri = None
        if type_id and kind == "entity":
            if context.dialect == "wikidata" and _BARE_WIKIDATA_ID.fullmatch(type_id):
                type_id = f"wd:{type_id}"
            type_iri = self.dependencies.tools(context).resolve(type_id)
        return AnswerType(label=label, type_id=type_id, type_iri=type_iri, kind=kind)

    def controller(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Choose the next action (Appendix F.2), or end the loop when the step budget is spent."""
        context = resolve_context(runtime.context)
        taken = state.get("steps", 0)
        if taken >= context.max_steps:
            # Graceful end well before LangGraph's recursion limit: finalize takes over.
            return {"pending_action": None, "stop_reason": "max_steps"}
        step = taken + 1
        prefixes = self.dependencies.tools(context).prefix_index
        mode = source_mode(self.dependencies, context)
        # The step being chosen counts as spent: "steps left" is what remains after it.
        sources_text = source_prompt_lines(mode, steps_left=context.max_steps - step)
        messages = controller_messages(state, context, prefixes, sources_text)
        call_id = f"step-{step}"
        names = enabled_tools(
            context.grounding_tools, sources=mode.on, find=mode.find, examples=examples_offered(context)
        )
        if context.tool_calling == "native":
            model = self.dependencies.model_factory(context, "controller").bind_tools(tool_schemas(names))
            reply, usage = invoke_model(model, messages)
            action = native_action(reply, call_id=call_id)
            calls = 1
        else:
            reply, usage = invoke_model(self.dependencies.model_factory(context, "controller"), messages)
            parser = self.dependencies.model_factory(context, "parse")
            parsed, parse_usage = invoke_model(parser, parse_messages(message_text(reply), context))
            action = text_action(json_object(message_text(parsed)), call_id=call_id)
            usage = add_token_usage(usage, parse_usage)
            calls = 2
        if action.problem is None and action.tool not in names and action.tool in TOOL_ARGUMENTS:
            problem = f"The tool {action.tool} is switched off in this run. Valid tools: {tool_signatures(names)}."
            action = action.model_copy(update={"problem": problem})
        refusal = single_shot_refusal(state.get("history", []), action) if context.single_shot else None
        if refusal is not None:
            action = action.model_copy(update={"problem": refusal})
        earlier = repeated_step(state.get("history", []), action)
        if earlier is not None:
            problem = (
                f"Refused: you already ran {action.tool}({earlier.argument[:200]}) at step {earlier.step}; "
                "it was not run again because the result would be the same. Choose a different action."
            )
            action = action.model_copy(update={"problem": problem})
        delta: dict[str, Any] = {
            "steps": 1,
            "llm_calls": calls,
            "token_usage": usage,
            "pending_action": action,
            "messages": [transcript_message(action, message_text(reply))],
        }
        if action.tool == "stop" and action.problem is None:
            delta["stop_reason"] = "stop"
        return delta

    def prune_fallback(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Let the model keep the relevant properties of an untyped entity's neighbourhood (Appendix F.3)."""
        context = resolve_context(runtime.context)
        request = state.get("prune_request")
        if request is None:
            return {}
        model = self.dependencies.model_factory(context, "prune")
        reply, usage = invoke_model(model, prune_messages(request, state, context))
        parsed = json_object(message_text(reply))
        wanted = parsed.get("keep") if parsed is not None else None
        known = {prop_id for prop_id, _line in request.lines}
        named = [str(item) for item in wanted] if isinstance(wanted, list) else []
        keep = {item for item in named if item in known}
        # Ids the model made up are named back, so it learns they do not exist here instead of trusting them.
        invented = sorted({item for item in named if item not in known})
        if keep:
            kept_lines = [line for prop_id, line in request.lines if prop_id in keep]
            note = (
                f"(No type is known for this entity, so the model pruned its properties: "
                f"{len(kept_lines)} of {len(request.lines)} kept.)"
            )
        else:
            kept_lines = [line for _id, line in request.lines]
            note = "(No type is known for this entity; pruning gave no usable answer, so all properties are shown.)"
        if invented:
            shown = ", ".join(graph_text(item, cap=80) for item in invented[:10])
            more = f" and {len(invented) - 10} more" if len(invented) > 10 else ""
            note += f"\n(ignored, not properties of this entity: {shown}{more})"
        observation = "\n".join(part for part in (request.head, note, *kept_lines, request.tail) if part)
        action = Action(tool="lookup", argument=request.argument, call_id=f"step-{request.step}")
        return {
            "prune_request": None,
            "llm_calls": 1,
            "token_usage": usage,
            "history": [step_record(request.step, action, observation, "ok", thought=request.thought)],
            "knowledge_log": [knowledge(request.step, "ok", f"lookup {request.argument[:80]}: pruned by the model")],
            "messages": [ToolMessage(observation, tool_call_id=action.call_id, name="lookup")],
        }


def native_action(reply: AIMessage, *, call_id: str) -> Action:
    """The action of a native tool-calling reply (its first tool call; extra calls are ignored)."""
    thought = message_text(reply).strip()[:2000]
    if reply.tool_calls:
        call = reply.tool_calls[0]
        action = action_from_call(call["name"], call["args"], call_id=call_id, thought=thought)
        if len(reply.tool_calls) > 1 and action.problem is None:
            ignored = ", ".join(c["name"] for c in reply.tool_calls[1:])[:200]
            action = action.model_copy(
                update={"thought": f"{thought}\n(only the first tool call ran; ignored: {ignored})".strip()}
            )
        return action
    if reply.invalid_tool_calls:
        bad = reply.invalid_tool_calls[0]
        return action_from_invalid_call(bad.get("name"), bad.get("error"), call_id=call_id)
    return missing_action("Your reply called no tool.", call_id=call_id, thought=thought)


def text_action(parsed: dict[str, Any] | None, *, call_id: str) -> Action:
    """The action the parsing call extracted from the controller's free text."""
    if parsed is None:
        return missing_action("Your reply could not be read as one action.", call_id=call_id)
    name = str(parsed.get("action_name") or "").strip()
    argument = parsed.get("action_argument")
    thought = str(parsed.get("thought") or "").strip()[:2000]
    expected = TOOL_ARGUMENTS.get(name)
    args: dict[str, Any] = {}
    if expected is not None:
        args[expected] = "" if argument is None else str(argument)
    return action_from_call(name, args, call_id=call_id, thought=thought)


def transcript_message(action: Action, text: str) -> AIMessage:
    """The controller's turn as kept in the transcript: its text and the one action it chose."""
    expected = TOOL_ARGUMENTS.get(action.tool)
    args = {expected: action.argument} if expected else {}
    call = {"name": action.tool or "none", "args": args, "id": action.call_id, "type": "tool_call"}
    return AIMessage(content=text, tool_calls=[call])

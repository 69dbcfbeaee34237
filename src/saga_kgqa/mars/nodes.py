"""The MARS nodes. Each returns a delta; a reply the pipeline cannot use becomes a step the model is told about.

* ``link``: the model names the question's mentions (and, augmented, the expected types);
  the project's search turns each mention into an entity of the graph.
* ``retrieve``: the frontier's patterns, ranked against the question, top N enriched and numbered.
* ``reason``: the model writes SPARQL or picks pattern numbers to expand (up to the hop limit).
* ``execute``: the query through the guard and the type check (SAGA's execute tool).
* ``verify``: one pass in which the model accepts the result or rewrites the query.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from saga_kgqa.config.context import SagaContext, resolve_context
from saga_kgqa.graph.dependencies import GraphDependencies
from saga_kgqa.graph.model_calls import invoke_model, json_object, message_text
from saga_kgqa.mars.prompts import link_messages, reason_messages, verify_messages
from saga_kgqa.mars.replies import is_correct, read_decision, read_sparql
from saga_kgqa.state.mars import MarsState, PatternEntry
from saga_kgqa.state.records import QueryAttempt, Step
from saga_kgqa.text_safety import graph_text
from saga_kgqa.tools.execute.tool import ExecuteSettings
from saga_kgqa.tools.patterns.configured import configured_ranking
from saga_kgqa.tools.patterns.enrichment import EnrichSettings, enrich
from saga_kgqa.tools.patterns.retrieval import retrieve_many

_MENTIONS = 5
_HITS_PER_MENTION = 1


class MarsNodes:
    """The MARS pipeline's nodes, bound to the graph's dependencies (model factory, toolbox)."""

    def __init__(self, dependencies: GraphDependencies) -> None:
        """Keep the factories."""
        self.dependencies = dependencies

    def link(self, state: MarsState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Find the question's entities: mentions from the model, entities from the project's search."""
        context = resolve_context(runtime.context)
        question = state.get("question", "")
        model = self.dependencies.model_factory(context, "mars_link")
        reply, usage = invoke_model(model, link_messages(question, context))
        parsed = json_object(message_text(reply)) or {}
        mentions = [graph_text(str(m), 120) for m in parsed.get("entities") or [] if str(m).strip()][:_MENTIONS]
        tools = self.dependencies.tools(context)
        linked: list[str] = []
        for mention in mentions:
            hits = [hit for hit in tools.search(mention).hits if hit.kind == "entity"][:_HITS_PER_MENTION]
            linked.extend(hit.resource.iri for hit in hits if hit.resource.iri not in linked)
        augmented = None
        types = [graph_text(str(t), 60) for t in parsed.get("types") or [] if str(t).strip()][:_MENTIONS]
        if context.mars_augmented_question and types:
            augmented = f"{question} (types: {', '.join(types)})"
        observation = f"mentions {mentions} linked to {len(linked)} entities"
        return {
            "augmented_question": augmented,
            "linked_entities": linked,
            "frontier": linked,
            "hops": 0,
            "llm_calls": 1,
            "token_usage": usage,
            "history": [Step(step=0, tool="link", argument=question, observation=observation, outcome="info")],
        }

    def retrieve(self, state: MarsState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Read, rank, cut to the top N and enrich the frontier's patterns (ones already shown are skipped)."""
        context = resolve_context(runtime.context)
        tools = self.dependencies.tools(context)
        shown = list(state.get("patterns", []))
        seen = {(entry.entity, entry.prop, entry.direction) for entry in shown}
        found = retrieve_many(tools.context, state.get("frontier", []))
        fresh = [pattern for pattern in found.patterns if pattern.key not in seen]
        question = state.get("augmented_question") or state.get("question", "")
        top = configured_ranking(context).rank(question, fresh)[: context.mars_top_n]
        settings = EnrichSettings(examples=context.mars_examples, typology=context.mars_typology)
        hop = state.get("hops", 0)
        entries = [
            PatternEntry(
                index=len(shown) + offset,
                hop=hop,
                text=item.text,
                entity=item.pattern.entity,
                prop=item.pattern.prop,
                direction=item.pattern.direction,
                instance_iris=item.instance_iris,
            )
            for offset, item in enumerate(enrich(tools.context, top, settings), start=1)
        ]
        return {"patterns": entries, "pattern_notes": found.notes, "frontier": []}

    def reason(self, state: MarsState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Ask for SPARQL or an expansion; past the hop limit an expansion ends the run."""
        context = resolve_context(runtime.context)
        tools = self.dependencies.tools(context)
        step = state.get("steps", 0) + 1
        hops = state.get("hops", 0)
        messages = reason_messages(
            state.get("question", ""),
            state.get("augmented_question"),
            state.get("patterns", []),
            state.get("pattern_notes", []),
            state.get("history", []),
            tools.prefixes,
            context,
            context.mars_hop_limit - hops,
        )
        reply, usage = invoke_model(self.dependencies.model_factory(context, "mars_reason"), messages)
        text = message_text(reply)
        decision = read_decision(text)
        delta: dict[str, Any] = {"steps": 1, "llm_calls": 1, "token_usage": usage, "candidate_sparql": None}
        if decision.sparql is not None:
            delta["candidate_sparql"] = decision.sparql
            return delta
        if decision.problem is not None:
            delta["history"] = [
                Step(step=step, tool="reason", argument="", observation=decision.problem, outcome="refused")
            ]
            if step >= context.max_steps:
                delta["stop_reason"] = "max_steps"
            return delta
        if hops >= context.mars_hop_limit:
            delta["stop_reason"] = "hop_limit"
            delta["history"] = [
                Step(
                    step=step,
                    tool="expand",
                    argument=str(list(decision.expand)),
                    observation="the hop limit is reached",
                    outcome="refused",
                )
            ]
            return delta
        by_index = {entry.index: entry for entry in state.get("patterns", [])}
        chosen = [by_index[i] for i in decision.expand if i in by_index]
        expanded = {entry.entity for entry in state.get("patterns", [])}
        frontier = list(dict.fromkeys(iri for entry in chosen for iri in entry.instance_iris if iri not in expanded))
        observation = (
            f"expanding {len(frontier)} entities from patterns {[e.index for e in chosen]}"
            if frontier
            else "those patterns have no entity instances to expand"
        )
        delta.update(
            {
                "frontier": frontier,
                "hops": hops + 1,
                "history": [
                    Step(
                        step=step,
                        tool="expand",
                        argument=str(list(decision.expand)),
                        observation=observation,
                        outcome="ok" if frontier else "empty",
                    )
                ],
            }
        )
        if step >= context.max_steps:
            delta["stop_reason"] = "max_steps"
        return delta

    def execute(self, state: MarsState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run the candidate query with SAGA's execute (guard, type check, empty-result diagnosis)."""
        context = resolve_context(runtime.context)
        sparql = state.get("candidate_sparql") or ""
        step = state.get("steps", 0)
        settings = ExecuteSettings(max_rows_shown=context.max_rows_shown, max_bytes=context.max_observation_bytes)
        outcome = self.dependencies.tools(context).execute(
            sparql, theta=state.get("theta"), step=step, settings=settings
        )
        attempt = QueryAttempt(
            step=step, sparql=sparql, status=outcome.status, row_count=outcome.row_count, boolean=outcome.boolean
        )
        record = Step(step=step, tool="execute", argument=sparql, observation=outcome.text, outcome=outcome.status)
        delta: dict[str, Any] = {"attempts": [attempt], "history": [record], "candidate_sparql": None}
        ran = outcome.status in ("ok", "empty")
        if ran and (not context.mars_verification or state.get("verified")):
            delta["stop_reason"] = "stop"
        elif not ran and step >= context.max_steps:
            delta["stop_reason"] = "max_steps"
        return delta

    def verify(self, state: MarsState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """One verification pass: accept the result (stop) or take the rewritten query (execute it)."""
        context = resolve_context(runtime.context)
        last = next(step for step in reversed(state.get("history", [])) if step.tool == "execute")
        messages = verify_messages(state.get("question", ""), last.argument, last.observation)
        reply, usage = invoke_model(self.dependencies.model_factory(context, "mars_verify"), messages)
        text = message_text(reply)
        delta: dict[str, Any] = {"verified": True, "llm_calls": 1, "token_usage": usage}
        rewrite = None if is_correct(text) else read_sparql(text)
        if rewrite is None or rewrite.strip() == last.argument.strip():
            delta["stop_reason"] = "stop"
        else:
            delta["candidate_sparql"] = rewrite
        return delta

"""The MARS prompts: entity mentions (optionally with expected types), the SPARQL reasoner, the verifier.

Each switch of MARS's ablations changes what the model reads: typology and examples both
change the pattern lines (:mod:`saga_kgqa.tools.patterns.enrichment`) and the reasoner's
instructions; the augmented question adds the types the model named; verification adds a pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from saga_kgqa.config.context import SagaContext
from saga_kgqa.prompts import load_prompt
from saga_kgqa.state.mars import PatternEntry
from saga_kgqa.state.records import Step
from saga_kgqa.text_safety import cap_block, quoted

# The wording lives in prompts/mars/*.md beside SAGA's (one place for every prompt text).
_LINK_SYSTEM = load_prompt("mars/link").rstrip("\n")
_LINK_TYPES = " " + load_prompt("mars/link_types").rstrip("\n")
_REASON_SYSTEM = load_prompt("mars/reason").rstrip("\n")
_TYPOLOGY_HINT = load_prompt("mars/typology_hint").rstrip("\n")
_EXAMPLES_HINT = load_prompt("mars/examples_hint").rstrip("\n")
_VERIFY_SYSTEM = load_prompt("mars/verify").rstrip("\n")
_OBSERVATION_CHARS = 4000
_ALWAYS_PREFIXES = frozenset({"rdf", "rdfs", "xsd"})


def link_messages(question: str, context: SagaContext) -> list[BaseMessage]:
    """The mention-finding prompt (with the type request when the augmented question is on)."""
    system = _LINK_SYSTEM + (_LINK_TYPES if context.mars_augmented_question else "")
    return [SystemMessage(system), HumanMessage(f"Question: {question}")]


def reason_messages(
    question: str,
    augmented: str | None,
    patterns: Sequence[PatternEntry],
    notes: Sequence[str],
    history: Sequence[Step],
    prefixes: Mapping[str, str],
    context: SagaContext,
    hops_left: int,
) -> list[BaseMessage]:
    """The reasoner's prompt: question, prefixes, every pattern so far, recent outcomes, hops left."""
    hints = [
        hint for on, hint in ((context.mars_typology, _TYPOLOGY_HINT), (context.mars_examples, _EXAMPLES_HINT)) if on
    ]
    system = "\n".join([_REASON_SYSTEM, *hints])
    lines = [f"Question: {question}"]
    if augmented:
        lines.append(f"Question with expected types: {augmented}")
    shown = "\n".join(entry.text for entry in patterns)
    # Only the prefixes the patterns use (a profile knows ~80), plus the ones every query may need.
    used = {name: ns for name, ns in prefixes.items() if f"{name}:" in shown or name in _ALWAYS_PREFIXES}
    lines.append("Prefixes: " + " ".join(f"PREFIX {name}: <{ns}>" for name, ns in sorted(used.items())))
    lines.append("Patterns:")
    lines.extend(f"[{entry.index}] {entry.text}" for entry in patterns)
    if not patterns:
        lines.append("(none: no entity of the question was found in the graph)")
    lines.extend(f"note: {note}" for note in dict.fromkeys(notes))
    for step in history[-3:]:
        lines.append(
            f"Earlier: {step.tool} {quoted(step.argument, 300)} -> {step.outcome}: "
            f"{cap_block(step.observation, _OBSERVATION_CHARS)}"
        )
    lines.append(f"Expansions left: {hops_left}" + (" (write the query now)" if hops_left <= 0 else ""))
    return [SystemMessage(system), HumanMessage("\n".join(lines))]


def verify_messages(question: str, sparql: str, observation: str) -> list[BaseMessage]:
    """The verification prompt: the question, the executed query and its result."""
    text = (
        f"Question: {question}\nQuery:\n```sparql\n{sparql}\n```\nResult:\n{cap_block(observation, _OBSERVATION_CHARS)}"
    )
    return [SystemMessage(_VERIFY_SYSTEM), HumanMessage(text)]

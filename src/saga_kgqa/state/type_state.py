"""The type state Θ: what is known about the types of entities and query variables, and why.

Θ maps a key (an entity IRI, a ``?variable`` or :data:`ANSWER_KEY`) to evidence items,
each naming a type, where it came from and at which step. It lives in the LangGraph
state with :func:`merge_type_state` as its reducer: tool nodes return a small
:class:`TypeState` delta and the reducer folds it in, never mutating either side.

Provenance:

* ``declared``: the graph says so (the entity's own type statements, seen on lookup).
* ``pattern``: an explicit type pattern in a partial query (``?x wdt:P31 wd:Q5``).
* ``trace``: types of entities returned by a non-empty result in this run.
* ``answer_prior``: the expected answer type predicted from the question (a bias, never a filter).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer

from saga_kgqa.kg.core.result import QueryResult

TypeProvenance = Literal["declared", "pattern", "trace", "answer_prior"]

#: Key of the expected answer type; no IRI or SPARQL variable can look like it.
ANSWER_KEY = "@answer"


class TypeEvidence(BaseModel):
    """One piece of evidence that a key has a type.

    Attributes:
        type_iri: The class (or, for literal answers, the datatype) IRI.
        provenance: Where the evidence came from.
        step: The agent step that produced it, when known (used to rank recency).
        detail: A short human-readable origin (the pattern, the query, the label).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    type_iri: str
    provenance: TypeProvenance
    step: int | None = None
    detail: str = ""


class TypeState(BaseModel):
    """An immutable-by-convention mapping from keys to type evidence (the paper's Θ).

    Every method returns data or a new state; nothing mutates ``entries`` after
    construction. Keys keep first-seen order.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    entries: dict[str, frozenset[TypeEvidence]] = Field(default_factory=dict)

    @field_serializer("entries")
    def _dump_entries(self, entries: dict[str, frozenset[TypeEvidence]]) -> dict[str, list[dict[str, object]]]:
        # Dumped evidence items are dicts, which a frozenset cannot hold: dump lists in a stable
        # order instead, so Θ survives JSON and LangGraph checkpoints (validation turns them back).
        return {key: [e.model_dump() for e in sorted(found, key=_evidence_order)] for key, found in entries.items()}

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def tracked(self) -> tuple[str, ...]:
        """The keys (entity IRIs, ``?variables``, the answer key), in first-seen order."""
        return tuple(self.entries)

    def evidence(self, key: str) -> frozenset[TypeEvidence]:
        """All evidence recorded for a key (empty when unknown)."""
        return self.entries.get(key, frozenset())

    def types_of(self, key: str, *, provenances: Collection[TypeProvenance] | None = None) -> frozenset[str]:
        """The types recorded for a key, optionally only those of some provenances.

        Args:
            key: An entity IRI, a ``?variable`` (``$x`` and bare ``x`` are accepted) or :data:`ANSWER_KEY`.
            provenances: Keep only evidence of these provenances (all by default).
        """
        found = self.entries.get(key) or self.entries.get(variable_key(key), frozenset())
        return frozenset(e.type_iri for e in found if provenances is None or e.provenance in provenances)

    def answer_types(self) -> frozenset[str]:
        """The expected answer types (the backward prior)."""
        return self.types_of(ANSWER_KEY)

    def recent(self, limit: int) -> list[tuple[str, frozenset[str]]]:
        """The ``limit`` most recently updated keys (by latest step, then first-seen order), newest first.

        The answer prior is left out: prompts show it on its own line.
        """
        order = {key: position for position, key in enumerate(self.entries)}
        keyed = [
            (max((e.step for e in found if e.step is not None), default=-1), order[key], key)
            for key, found in self.entries.items()
            if key != ANSWER_KEY
        ]
        keyed.sort(reverse=True)
        return [(key, self.types_of(key)) for _step, _order, key in keyed[:limit]]


def _evidence_order(item: TypeEvidence) -> tuple[str, str, int, str]:
    return (item.type_iri, item.provenance, -1 if item.step is None else item.step, item.detail)


def variable_key(name: str) -> str:
    """Normalise a variable name to the ``?name`` form used as a Θ key; IRIs pass unchanged."""
    if name.startswith("$"):
        return "?" + name[1:]
    if name.startswith("?") or ":" in name or name == ANSWER_KEY:
        return name
    return "?" + name


def merge_type_state(left: TypeState | None, right: TypeState | None) -> TypeState:
    """Fold ``right`` into ``left`` and return the result as a new state (the LangGraph reducer).

    Pure: neither argument is changed. Evidence for a key is the union of both sides;
    identical evidence items appear once. Keys keep first-seen order (left's, then right's new ones).
    """
    if left is None and right is None:
        return TypeState()
    if left is None or not left.entries:
        return TypeState.model_construct(entries=dict(right.entries) if right is not None else {})
    if right is None or not right.entries:
        return TypeState.model_construct(entries=dict(left.entries))
    merged = dict(left.entries)
    for key, found in right.entries.items():
        merged[key] = merged[key] | found if key in merged else found
    return TypeState.model_construct(entries=merged)


def type_state_of(items: Mapping[str, Iterable[TypeEvidence]]) -> TypeState:
    """Build a state from plain mappings (keys are normalised, evidence deduplicated)."""
    entries: dict[str, frozenset[TypeEvidence]] = {}
    for key, found in items.items():
        normalised = variable_key(key)
        entries[normalised] = entries.get(normalised, frozenset()) | frozenset(found)
    return TypeState.model_construct(entries={k: v for k, v in entries.items() if v})


def declared_types(
    entity_iri: str, type_iris: Iterable[str], *, step: int | None = None, detail: str = "lookup"
) -> TypeState:
    """Record an entity's own types, as read from the graph on lookup (provenance ``declared``)."""
    found = [TypeEvidence(type_iri=t, provenance="declared", step=step, detail=detail) for t in type_iris]
    return type_state_of({entity_iri: found})


def trace_types(
    result: QueryResult,
    entity_types: Mapping[str, Iterable[str]],
    *,
    step: int | None = None,
    detail: str = "result",
) -> TypeState:
    """Record types seen in a non-empty result (provenance ``trace``).

    Each IRI bound in the result whose types are given in ``entity_types`` gets them,
    and so does the variable it was bound to (a variable's types are the union over its
    rows: any one of them may hold). Reading the types from the graph, for a bounded
    sample of the result, is the caller's job.

    Args:
        result: The query result.
        entity_types: Types of (some of) the IRIs in the result.
        step: The agent step that ran the query.
        detail: Where the evidence came from (for example the query's short id).
    """
    collected: dict[str, set[TypeEvidence]] = {}
    for row in result.rows:
        for variable, term in row.items():
            if term.kind != "uri" or term.value not in entity_types:
                continue
            for type_iri in entity_types[term.value]:
                item = TypeEvidence(type_iri=type_iri, provenance="trace", step=step, detail=detail)
                collected.setdefault(variable_key(variable), set()).add(item)
                collected.setdefault(term.value, set()).add(item)
    return type_state_of(collected)


def answer_type_prior(type_iri: str, *, label: str | None = None, step: int | None = 0) -> TypeState:
    """Record the expected answer type predicted from the question (provenance ``answer_prior``).

    Args:
        type_iri: The class (``wd:Q5``) or, for scalar answers, a datatype such as ``xsd:boolean``.
        label: The predicted label ("person"), kept as the evidence detail.
        step: The step of the prediction (0: before the first tool call).
    """
    item = TypeEvidence(type_iri=type_iri, provenance="answer_prior", step=step, detail=label or "")
    return TypeState.model_construct(entries={ANSWER_KEY: frozenset({item})})

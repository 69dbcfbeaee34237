"""The bounded helper queries of the execute tool: entity types and existence checks.

Each is built from IRIs escaped by :mod:`saga_kgqa.kg.guard.sparql_terms` and sent through
:meth:`KnowledgeGraph.run` as a template; model text never reaches these functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema.queries import path_alternative


def usable_iris(values: Iterable[str]) -> list[str]:
    """The values that can be written as escaped IRIs, in first-seen order without repeats."""
    kept: dict[str, None] = {}
    for value in values:
        try:
            iri(value)
        except QueryRejected:
            continue
        kept.setdefault(value, None)
    return list(kept)


def fetch_types(
    graph: KnowledgeGraph,
    entities: Sequence[str],
    *,
    type_predicates: Sequence[str],
    deadline_s: float,
    max_rows: int = 1000,
) -> dict[str, frozenset[str]]:
    """Read the declared types of some entities with one bounded VALUES query.

    Args:
        graph: The graph to ask.
        entities: Entity IRIs; those that cannot be escaped safely are skipped.
        type_predicates: The vocabulary's type predicates (``rdf:type``, ``wdt:P31``).
        deadline_s: Budget of the query.
        max_rows: LIMIT of the query; types beyond it are not seen.

    Returns:
        Entity → its types; entities without types are absent.

    Raises:
        BackendError: The graph failed.
    """
    wanted = usable_iris(entities)
    if not wanted or not type_predicates:
        return {}
    values = " ".join(iri(entity) for entity in wanted)
    text = (
        f"SELECT ?entity ?type WHERE {{ VALUES ?entity {{ {values} }} "
        f"?entity {path_alternative(type_predicates)} ?type FILTER(isIRI(?type)) }}\nLIMIT {max_rows}"
    )
    result = graph.run(
        from_template(text, "SELECT", limit=max_rows), ExecutionLimits(deadline_s=deadline_s, max_rows=max_rows)
    )
    found: dict[str, set[str]] = {}
    for row in result.rows:
        entity, type_term = row.get("entity"), row.get("type")
        if entity is not None and type_term is not None:
            found.setdefault(entity.value, set()).add(type_term.value)
    return {entity: frozenset(types) for entity, types in found.items()}


def ask(graph: KnowledgeGraph, body: str, *, deadline_s: float) -> bool:
    """Run ``ASK { body }`` built by the caller from escaped terms and return its answer.

    Raises:
        BackendError: The graph failed or ran past the deadline.
    """
    result = graph.run(from_template(f"ASK {{ {body} }}", "ASK"), ExecutionLimits(deadline_s=deadline_s, max_rows=1))
    return bool(result.boolean)


def instance_of(
    variable: str, classes: Iterable[str], *, type_predicates: Sequence[str], subclass_predicates: Sequence[str]
) -> str:
    """A graph pattern binding ``?variable`` to instances of any of ``classes``, subclasses included.

    Args:
        variable: Variable name without ``?``.
        classes: Class IRIs (escaped here).
        type_predicates: The vocabulary's type predicates.
        subclass_predicates: The vocabulary's subclass predicates (none: direct instances only).
    """
    path = path_alternative(type_predicates)
    if subclass_predicates:
        path = f"{path}/{path_alternative(subclass_predicates)}*"
    values = " ".join(iri(c) for c in classes)
    return f"VALUES ?{variable}_class {{ {values} }} ?{variable} {path} ?{variable}_class ."

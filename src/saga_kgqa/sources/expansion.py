"""Expansion (AutoSchema's ``expand_entity``): an entity's local relation paths, out and in.

Outgoing and incoming triples of one IRI, with blank nodes and untyped intermediate nodes
expanded one more hop (a value held on an address node, a qualifier node). Properties are
typed from the source's schema index (the survey's when no schema is declared), and the
SAGA type filter applies here as in lookup: an outgoing property whose domain conflicts
with every known type of the entity is hidden, and so is an incoming one whose range does;
unknown domains are kept. Paths that the type filter hides are counted, never silently lost.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.schema.queries import path_alternative
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.sources.summary import RESULT_CHARS
from saga_kgqa.text_safety import cap_block, graph_text
from saga_kgqa.tools.graph_reads import Texts
from saga_kgqa.tools.render_observations import TextCaps, value_text
from saga_kgqa.tools.results import Value

_HOPS_READ = 400


class PathEdge(BaseModel):
    """One relation path from (or to) the entity.

    Attributes:
        direction: ``out`` (entity → value) or ``in`` (value → entity).
        property: The first predicate (compact id).
        value: The node at the other end.
        via: The second predicate when the path goes through an intermediate node.
        end: The value one hop beyond the intermediate node.
    """

    model_config = ConfigDict(frozen=True)

    direction: str
    property: str
    value: Value
    via: str | None = None
    end: Value | None = None


class Expansion(BaseModel):
    """An entity's local paths in one source."""

    model_config = ConfigDict(frozen=True)

    source: str
    entity: str
    types: tuple[str, ...] = ()
    paths: tuple[PathEdge, ...] = ()
    hidden: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    text: str = ""


def expand_entity(sources: SourceSet, source: str, entity: str) -> Expansion:
    """Read an entity's outgoing and incoming paths, one extra hop through intermediate nodes.

    Args:
        sources: The operator's sources.
        source: The source's name.
        entity: The entity as ``<iri>``, a prefixed name or an absolute IRI.

    Raises:
        UnknownName: No source has that name.
        ToolInputError: ``entity`` is not an IRI.
        BackendError: The source failed.
    """
    opened = sources.get(source)
    # Expand is a tool over the source's graph: it reads and labels through the source's one toolbox.
    context = opened.toolbox().default_view().context
    target = context.resolve(entity, role="entity")
    reads = context.reads()
    schema = opened.schema()
    types = reads.types_of_many([target], schema.type_predicates, per_entity=context.caps.types_read).get(target, [])
    type_path = path_alternative(schema.type_predicates)
    out_rows = reads.select(
        f"SELECT ?p ?o ?p2 ?o2 WHERE {{ {iri(target)} ?p ?o "
        f"OPTIONAL {{ FILTER(isBlank(?o) || (isIRI(?o) && NOT EXISTS {{ ?o {type_path} ?anyType }})) ?o ?p2 ?o2 }} }}",
        limit=_HOPS_READ,
        what="outgoing paths",
    ).rows
    in_rows = reads.select(
        f"SELECT ?p ?s ?p0 ?s0 WHERE {{ ?s ?p {iri(target)} OPTIONAL {{ FILTER(isBlank(?s)) ?s0 ?p0 ?s }} }}",
        limit=_HOPS_READ,
        what="incoming paths",
    ).rows
    hidden: set[str] = set()
    kept: list[tuple[str, str, Term, str | None, Term | None]] = []
    for row in out_rows:
        prop = row["p"].value
        if prop in schema.type_predicates:
            continue
        if types and schema.compatibility(types, prop, mode=context.mode).decision == "drop":
            hidden.add(prop)
            continue
        kept.append(("out", prop, row["o"], row["p2"].value if "p2" in row else None, row.get("o2")))
    for row in in_rows:
        prop = row["p"].value
        if types and schema.range_compatibility(types, prop, mode=context.mode).decision == "drop":
            hidden.add(prop)
            continue
        kept.append(("in", prop, row["s"], row["p0"].value if "p0" in row else None, row.get("s0")))
    wanted = {target, *types}
    for _d, prop, node, via, end in kept:
        wanted.add(prop)
        wanted.update(t.value for t in (node, end) if t is not None and t.kind == "uri")
        if via:
            wanted.add(via)
    texts: dict[str, Texts] = context.texts(reads, wanted)
    paths = tuple(
        PathEdge(
            direction=direction,
            property=context.ref(prop, texts).id,
            value=context.value(node, texts),
            via=context.ref(via, texts).id if via else None,
            end=context.value(end, texts) if end is not None else None,
        )
        for direction, prop, node, via, end in kept
    )
    result = Expansion(
        source=opened.name,
        entity=context.ref(target, texts).id,
        types=tuple(context.ref(t, texts).id for t in types),
        paths=paths,
        hidden=tuple(sorted(context.ref(p, texts).id for p in hidden)),
        notes=tuple(reads.notes),
    )
    return result.model_copy(update={"text": render_expansion(result, context.caps.text)})


def render_expansion(result: Expansion, text_caps: TextCaps, max_chars: int = RESULT_CHARS) -> str:
    """The model's view: one path per line, the type filter's hidden properties counted."""
    lines = [f"paths of {result.entity} in {result.source} (types: {', '.join(result.types) or 'none known'}):"]
    for path in result.paths:
        value = value_text(path.value, text_caps)
        hop = f" / {path.via} {value_text(path.end, text_caps)}" if path.via and path.end is not None else ""
        if path.direction == "out":
            lines.append(f"  {result.entity} {path.property} {value}{hop}")
        else:
            lines.append(f"  {value}{hop} {path.property} {result.entity}")
    if not result.paths:
        lines.append("  no paths found")
    if result.hidden:
        lines.append(
            f"  hidden by the type filter (schema conflicts with the entity's types): {', '.join(result.hidden)}"
        )
    lines.extend(f"  note: {graph_text(note)}" for note in result.notes[:3])
    return cap_block("\n".join(lines), max_chars)

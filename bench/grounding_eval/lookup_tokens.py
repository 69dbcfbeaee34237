"""Tokens of SAGA's lookup observation against SPINACH's raw entity JSON, for the same entities.

SPINACH's ``get_wikidata_entry`` (docs reference-systems.md §1.2) shows every truthy
``wdt:`` edge of an item except external identifiers, with English labels from WDQS's
label service, as JSON; :func:`spinach_raw_entry` rebuilds that from any Wikidata-shaped
graph (the offline store, or a live endpoint with neighbourhoods of real size). The
lookup is rendered by the toolkit as the agent would see it, and optionally a second
time with no sample values (the paper's entries). Counts use tiktoken's cl100k_base.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from bench.grounding_eval.measurement import TokenSample
from bench.grounding_eval.spinach_format import Edge, QueryRunner, outgoing_edges, spinach_entry
from bench.grounding_eval.tokens import count_tokens
from saga_kgqa.dialects.model import WIKIBASE_EXTERNAL_ID, WIKIDATA_DIRECT, WIKIDATA_ENTITY
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.tools.results import LookupResult
from saga_kgqa.tools.toolbox import ToolView

#: Neighbourhood size (values) from which SPINACH needs its pruning call, and the headline ratio's set.
LARGE_NEIGHBOURHOOD = 20


@dataclass(slots=True)
class TokenComparison:
    """Token samples of the shipped lookup and of the paper's entries, each against SPINACH's JSON."""

    tokens: list[TokenSample] = field(default_factory=list)
    paper_tokens: list[TokenSample] = field(default_factory=list)

    def ratio(self, *, paper_form: bool = False) -> float:
        """Compact over raw tokens, summed over entities with at least ``LARGE_NEIGHBOURHOOD`` values."""
        large = [s for s in (self.paper_tokens if paper_form else self.tokens) if s.values >= LARGE_NEIGHBOURHOOD]
        raw = sum(s.raw_tokens for s in large)
        return sum(s.compact_tokens for s in large) / raw if raw else 0.0


def wikidata_id(iri: str) -> str:
    """The bare id SPINACH shows (``Q5``, ``P31``); other IRIs unchanged."""
    for namespace in (WIKIDATA_ENTITY, WIKIDATA_DIRECT):
        if iri.startswith(namespace):
            return iri[len(namespace) :]
    return iri


def spinach_raw_entry(
    graph: QueryRunner, entity: str, schema: SchemaIndex, label_predicates: Iterable[str], language: str = "en"
) -> str:
    """SPINACH's raw JSON of a Wikidata item: truthy edges without external identifiers, labelled."""
    edges = []
    for edge in outgoing_edges(
        graph, entity, label_predicates=label_predicates, property_namespace=WIKIDATA_DIRECT, language=language
    ):
        entry = schema.properties.get(edge.property_iri)
        if entry is not None and entry.datatype == WIKIBASE_EXTERNAL_ID:
            continue  # SPINACH's query filters wikibase:propertyType != wikibase:ExternalId
        label = entry.label if entry is not None else None
        edges.append(Edge(edge.property_iri, edge.value, label or edge.property_label, edge.value_label))
    return spinach_entry(edges, wikidata_id, label_service=True)


def compare(
    into: TokenComparison,
    kit: ToolView,
    graph: QueryRunner,
    schema: SchemaIndex,
    entity: str,
    *,
    result: LookupResult | None = None,
    paper_kit: ToolView | None = None,
) -> LookupResult:
    """Add one entity's token samples (looking it up unless ``result`` is given); returns the lookup."""
    result = result if result is not None else kit.lookup(entity)
    values = sum(k.value_count for k in result.kept) + sum(h.value_count for h in result.hidden)
    raw = count_tokens(spinach_raw_entry(graph, entity, schema, kit.context.vocabulary.label_predicates))
    into.tokens.append(TokenSample(entity, values, count_tokens(result.text), raw))
    if paper_kit is not None:
        into.paper_tokens.append(TokenSample(entity, values, count_tokens(paper_kit.lookup(entity).text), raw))
    return result


def measure_tokens(
    kit: ToolView,
    graph: QueryRunner,
    schema: SchemaIndex,
    entities: Iterable[str],
    *,
    paper_kit: ToolView | None = None,
) -> TokenComparison:
    """Token samples of every entity (each once, in the order given)."""
    comparison = TokenComparison()
    for entity in dict.fromkeys(entities):
        compare(comparison, kit, graph, schema, entity, paper_kit=paper_kit)
    return comparison

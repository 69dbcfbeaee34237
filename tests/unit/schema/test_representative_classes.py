"""Long domains and ranges are shown by their most representative classes first (observations show one)."""

from __future__ import annotations

from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import PropertySchema, SchemaIndex
from saga_kgqa.schema.model import SideEvidence, TypeCount
from saga_kgqa.tools.context import ToolContext
from tests.support.grounding import MINI_TTL

EX = "http://example.org/"


def _prop(name: str, range_: list[str], evidence: SideEvidence | None = None) -> PropertySchema:
    return PropertySchema(
        iri=EX + name,
        range=frozenset(EX + r for r in range_),
        range_source="induced" if evidence else "curated",
        range_evidence=evidence,
    )


def _index() -> SchemaIndex:
    # "Country" is in the range of three properties, the narrow "Archipelago" and "Islet" of one each.
    observed = SideEvidence(sampled=10, counts=(TypeCount(type_iri=EX + "Islet", count=7),))
    properties = [
        _prop("citizenOf", ["Archipelago", "Country"]),
        _prop("bornIn", ["Country"]),
        _prop("diedIn", ["Country"]),
        _prop("visited", ["Islet", "Country"], observed),
    ]
    return SchemaIndex(properties={p.iri: p for p in properties})


def test_prominence_counts_the_properties_naming_a_class() -> None:
    index = _index()
    assert index.class_prominence(EX + "Country") == 4
    assert index.class_prominence(EX + "Archipelago") == 1
    assert index.class_prominence(EX + "Unknown") == 0


def test_the_most_prominent_class_comes_first_unless_sampling_observed_another_more() -> None:
    with EmbeddedStore.from_files([MINI_TTL]) as backend:
        context = ToolContext(KnowledgeGraph(backend), _index())
        curated = context.property_info(EX + "citizenOf")
        induced = context.property_info(EX + "visited")
    # By IRI "Archipelago" sorts first, and the observation would read "range: Archipelago +1 more".
    assert [ref.iri for ref in curated.range] == [EX + "Country", EX + "Archipelago"]
    # Where sampling counted the objects' types, the most observed one leads.
    assert [ref.iri for ref in induced.range] == [EX + "Islet", EX + "Country"]

"""A tiny Wikidata-shaped graph (wd:/wdt:, P31 types, P279 hierarchy) for the dialect wiring tests."""

from __future__ import annotations

from pathlib import Path

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"

WIKIDATA_SHAPED_TTL = """\
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix schema: <http://schema.org/> .
wd:Q1 rdfs:label "Ann Example"@en ; schema:description "test person"@en ; wdt:P31 wd:Q5 ; wdt:P27 wd:Q10 .
wd:Q2 rdfs:label "Bob Example"@en ; wdt:P31 wd:Q5 ; wdt:P27 wd:Q10 .
wd:Q5 rdfs:label "human"@en .
wd:Q10 rdfs:label "Freedonia"@en ; wdt:P31 wd:Q6256 .
wd:Q6256 rdfs:label "country"@en ; wdt:P279 wd:Q56061 .
wd:P27 rdfs:label "country of citizenship"@en .
"""


def write_wikidata_shaped(directory: Path) -> Path:
    """Write the graph as ``wikidata_shaped.ttl`` under ``directory`` and return its path."""
    path = directory / "wikidata_shaped.ttl"
    path.write_text(WIKIDATA_SHAPED_TTL, encoding="utf-8")
    return path


#: Full statements (p:/ps:/pq:, wikibase:rank, prov:wasDerivedFrom/pr:) beside the truthy triples, as the WDQS
#: RDF dump writes them: Ann's citizenship of Freedonia (normal rank, a start time, a reference), and her
#: former citizenship of Sylvania, deprecated (no truthy triple: the dump omits deprecated statements from wdt:).
WIKIDATA_STATEMENTS_TTL = (
    WIKIDATA_SHAPED_TTL
    + """\
@prefix p: <http://www.wikidata.org/prop/> .
@prefix ps: <http://www.wikidata.org/prop/statement/> .
@prefix pq: <http://www.wikidata.org/prop/qualifier/> .
@prefix pr: <http://www.wikidata.org/prop/reference/> .
@prefix wikibase: <http://wikiba.se/ontology#> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix wds: <http://www.wikidata.org/entity/statement/> .
@prefix wdref: <http://www.wikidata.org/reference/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
wd:Q1 p:P27 wds:Q1-citizenship-1, wds:Q1-citizenship-2 .
wds:Q1-citizenship-1 ps:P27 wd:Q10 ; wikibase:rank wikibase:NormalRank ;
    pq:P580 "2001-01-01T00:00:00Z"^^xsd:dateTime ; prov:wasDerivedFrom wdref:ref1 .
wdref:ref1 pr:P854 <https://registry.example/ann> ; pr:P813 "2020-05-01T00:00:00Z"^^xsd:dateTime .
wds:Q1-citizenship-2 ps:P27 wd:Q11 ; wikibase:rank wikibase:DeprecatedRank ;
    pq:P582 "2000-12-31T00:00:00Z"^^xsd:dateTime .
wd:Q11 rdfs:label "Sylvania"@en ; wdt:P31 wd:Q6256 .
wd:P580 rdfs:label "start time"@en .
wd:P582 rdfs:label "end time"@en .
wd:P854 rdfs:label "reference URL"@en .
"""
)


def write_wikidata_statements(directory: Path) -> Path:
    """Write the graph with full statements as ``wikidata_statements.ttl`` under ``directory``; return its path."""
    path = directory / "wikidata_statements.ttl"
    path.write_text(WIKIDATA_STATEMENTS_TTL, encoding="utf-8")
    return path

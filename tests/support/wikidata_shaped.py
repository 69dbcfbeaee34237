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

"""A graph where one name means two people (asking back, issue 37 point 5), and the run that asks about it."""

from __future__ import annotations

from pathlib import Path

EX = "http://example.org/amb/"

AMBIGUOUS_TTL = f"""\
@prefix ex: <{EX}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Person a rdfs:Class ; rdfs:label "person"@en .
ex:City a rdfs:Class ; rdfs:label "city"@en .
ex:smith_astronaut a ex:Person ; rdfs:label "John Smith"@en ; rdfs:comment "astronaut, born 1930"@en ;
    ex:bornIn ex:houston .
ex:smith_painter a ex:Person ; rdfs:label "John Smith"@en ; rdfs:comment "painter, born 1952"@en ;
    ex:bornIn ex:leeds .
ex:houston a ex:City ; rdfs:label "Houston"@en .
ex:leeds a ex:City ; rdfs:label "Leeds"@en .
ex:bornIn rdfs:label "born in"@en ; rdfs:domain ex:Person ; rdfs:range ex:City .
"""
QUESTION = "Where was John Smith born?"
ASTRONAUT, PAINTER = EX + "smith_astronaut", EX + "smith_painter"
LEEDS = EX + "leeds"


def born_in(person: str) -> str:
    """The final query for one of the two people."""
    return f"SELECT ?city WHERE {{ <{person}> <{EX}bornIn> ?city }}"


def write_ambiguous(directory: Path) -> Path:
    """Write the graph as ``ambiguous.ttl`` under ``directory`` and return its path."""
    path = directory / "ambiguous.ttl"
    path.write_text(AMBIGUOUS_TTL, encoding="utf-8")
    return path

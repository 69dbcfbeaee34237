"""A seeded synthetic graph of realistic shape for ``bench/scale.py``, written as N-Triples.

Classes with labels and a subclass tree, declared ``rdfs:domain``/``rdfs:range`` of object and
datatype properties, and labelled instances (~10 triples each): each instance has a type, an
``rdfs:label`` (unique: "<word> <word> <n>"), two object links to instances of the property's range and
three literal values. The graph is streamed to disk, so its size costs no memory.
"""

from __future__ import annotations

import random
from pathlib import Path

EX = "http://example.org/scale/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
CLASSES = 40
OBJECT_PROPERTIES = 60
DATA_PROPERTIES = 40
TRIPLES_PER_ENTITY = 10
_WORDS = ("alpha", "boreal", "cinder", "delta", "ember", "fjord", "garnet", "harbor", "iris", "jasper", "kestrel")


def entity_label(n: int) -> str:
    """The label of entity ``n`` (unique, so an exact-label search has one right answer)."""
    return f"{_WORDS[n % len(_WORDS)]} {_WORDS[(n // len(_WORDS)) % len(_WORDS)]} {n}"


def entity_iri(n: int) -> str:
    """The IRI of entity ``n``."""
    return f"{EX}e{n}"


def generate(path: Path, triples: int, seed: int = 27) -> tuple[int, int]:
    """Write about ``triples`` triples to ``path``; return (triples written, entities)."""
    rng = random.Random(seed)
    entities = max(1, triples // TRIPLES_PER_ENTITY)
    count = 0
    with path.open("w", encoding="utf-8", buffering=1 << 20) as out:
        for c in range(CLASSES):
            out.write(f"<{EX}C{c}> <{RDF_TYPE}> <http://www.w3.org/2002/07/owl#Class> .\n")
            out.write(f'<{EX}C{c}> <{RDFS}label> "class {c}"@en .\n')
            count += 2
            if c:
                out.write(f"<{EX}C{c}> <{RDFS}subClassOf> <{EX}C{(c - 1) // 3}> .\n")
                count += 1
        for p in range(OBJECT_PROPERTIES):
            out.write(f'<{EX}op{p}> <{RDFS}label> "object property {p}"@en .\n')
            out.write(f"<{EX}op{p}> <{RDFS}domain> <{EX}C{p % CLASSES}> .\n")
            out.write(f"<{EX}op{p}> <{RDFS}range> <{EX}C{(p * 7) % CLASSES}> .\n")
            count += 3
        for p in range(DATA_PROPERTIES):
            out.write(f'<{EX}dp{p}> <{RDFS}label> "data property {p}"@en .\n')
            out.write(f"<{EX}dp{p}> <{RDFS}domain> <{EX}C{p % CLASSES}> .\n")
            out.write(f"<{EX}dp{p}> <{RDFS}range> <{XSD}{'integer' if p % 2 else 'date'}> .\n")
            count += 3
        lines: list[str] = []
        for e in range(entities):
            cls = e % CLASSES
            s = f"<{EX}e{e}>"
            lines.append(f"{s} <{RDF_TYPE}> <{EX}C{cls}> .")
            lines.append(f'{s} <{RDFS}label> "{entity_label(e)}"@en .')
            for k in range(2):
                prop = (cls + k * CLASSES) % OBJECT_PROPERTIES
                lines.append(f"{s} <{EX}op{prop}> <{EX}e{rng.randrange(entities)}> .")
            for k in range(3):
                prop = (cls + k * CLASSES) % DATA_PROPERTIES
                value = (
                    f'"{rng.randrange(10**6)}"^^<{XSD}integer>'
                    if prop % 2
                    else f'"{1900 + rng.randrange(120)}-0{1 + rng.randrange(9)}-1{rng.randrange(10)}"^^<{XSD}date>'
                )
                lines.append(f"{s} <{EX}dp{prop}> {value} .")
            lines.append(f'{s} <{RDFS}comment> "entity number {e} of class {cls}"@en .')
            lines.append(f'{s} <{EX}code> "X{e:08d}" .')
            count += 10
            if len(lines) >= 10_000:
                out.write("\n".join(lines) + "\n")
                lines.clear()
        if lines:
            out.write("\n".join(lines) + "\n")
    return count, entities

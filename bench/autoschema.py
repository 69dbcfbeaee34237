"""Live schema grounding (AutoSchema, issue 14) without an LLM: survey fidelity, entity resolution, bridging.

* Survey fidelity: every graph with a declared ontology under --data-dir (CK25, the
  Spider4SPARQL dev graphs) is surveyed *without* its ontology file; surveyed domains are
  compared with the declared ones per property (a surveyed class counts as correct when it
  is a declared domain class or a subclass of one; a declared class is recalled when the
  survey names it or a subclass of it; macro-averaged over the properties the data uses
  that have a declared domain). Then the grounding bench (bench.grounding_eval.measurement) runs
  with the surveyed index in place of the declared one, side by side, for retention,
  false blocks and detection. Survey cost: requests and seconds per graph.
* Entity resolution on CK25: the gold queries' constant entity IRIs, searched by the
  question's n-gram closest to one of the entity's names (an oracle mention span), with
  the persistent full-text index and today's in-memory search; recall@1 and @5.
* Search latency: p50 of the same queries over a synthetic store of --names names (1M by
  default), full-text index vs the in-memory index, measured in one run.
* Survey cost at scale: requests and seconds of one survey of the ~1M-triple bench graph
  (bench/store_latency.py's generator, 100,000 entities of 200 classes) in the embedded
  store and behind a loopback ``oxigraph serve-read-only``, side by side; the request count
  must stay within :meth:`SurveyLimits.max_requests` whatever the graph's size.
* Bridging: CK25 cut into two sources along pv:Supplier (the right side's IRIs in another
  namespace, pv:id kept on both); the top candidate must be that join, and its two-step
  plan must reproduce the single-graph answer to "the supplier's country of product X".

Usage: python bench/autoschema.py --data-dir ../shared/data [--names 1000000] [--limit-questions N]
       python bench/autoschema.py --data-dir ../shared/data --survey-cost-only [--survey-entities 100000]
"""

from __future__ import annotations

import argparse
import difflib
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rdflib import URIRef
from rdflib.plugins.sparql import prepareQuery

sys.path.insert(0, str(Path(__file__).resolve().parent))  # store_latency and name_index generators
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.support, when run as a script
from bench.grounding_eval.measurement import MeasureSettings, measure_graph
from bench.grounding_eval.probe import ToolkitProbe
from bench.grounding_eval.report import merged
from name_index import synthetic_names, with_typos
from saga_kgqa.app.sources import open_source_toolbox
from saga_kgqa.benchmarks.datasets import BenchmarkGraph, discover_graphs
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.kg.guard.sparql_terms import string_literal
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.schema import SchemaIndex, build_schema_index
from saga_kgqa.schema.survey import survey_source
from saga_kgqa.schema.survey_model import SurveyLimits
from saga_kgqa.sources.bridging import bridge_sources
from saga_kgqa.sources.grounding import execute_on_source
from saga_kgqa.sources.resolution import name_index
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.tools.context import ToolCaps
from saga_kgqa.tools.search.fulltext import FullTextIndex
from saga_kgqa.tools.search.label_index import NameEntry, read_names
from smoke import first, shrink
from store_latency import generate_graph
from tests.support.bridge_fixture import split_graph
from tests.support.grounding import tool_view
from tests.support.oxigraph_server import oxigraph_binary, oxigraph_server

PV = "http://ld.company.org/prod-vocab/"


def main() -> None:
    """Run every part present, print the tables and the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--names", type=int, default=1_000_000, help="names in the latency store")
    parser.add_argument("--queries", type=int, default=25, help="search queries timed per index")
    parser.add_argument("--limit-questions", type=int, default=None, help="first N questions of each graph")
    parser.add_argument("--survey-entities", type=int, default=100_000, help="entities of the survey-cost graph")
    parser.add_argument("--survey-cost-only", action="store_true", help="measure the survey cost at scale only")
    args = shrink(parser.parse_args(), names=400, queries=3, limit_questions=2, survey_entities=300)
    work = Path(tempfile.mkdtemp(prefix="saga-autoschema-bench-"))
    cost = _survey_cost(args.survey_entities, work)
    cost_fields = " ".join(f"{key}={value}" for key, value in cost.items())
    if args.survey_cost_only:
        print(f"RESULT {cost_fields}")
        return
    catalog = discover_graphs(args.data_dir)
    fidelity = [_fidelity(graph, args) for graph in first(catalog.graphs)]
    precision = statistics.mean(p for f in fidelity for p in f["precision"])
    recall = statistics.mean(r for f in fidelity for r in f["recall"])
    declared = merged([f["declared"] for f in fidelity], "declared")
    surveyed = merged([f["surveyed"] for f in fidelity], "surveyed")
    print(f"\n{'graph':28} {'props':>5} {'dom_p':>6} {'dom_r':>6} {'requests':>8} {'survey_s':>8}")
    for f in fidelity:
        p = statistics.mean(f["precision"]) if f["precision"] else float("nan")
        r = statistics.mean(f["recall"]) if f["recall"] else float("nan")
        print(f"{f['name']:28} {len(f['precision']):5d} {p:6.3f} {r:6.3f} {f['requests']:8d} {f['seconds']:8.2f}")
    d, s = declared.modes["subclass"], surveyed.modes["subclass"]
    print("\ngrounding with the declared index vs the surveyed index (subclass-aware), same questions:")
    print(f"  retention    {_f(d.retention)}  vs {_f(s.retention)}")
    print(f"  detection    {_f(d.detection)}  vs {_f(s.detection)}")
    print(f"  false blocks {len(d.false_blocks)}  vs {len(s.false_blocks)}")
    print(f"  blocked gold matching nothing {len(d.empty_gold_blocks)}  vs {len(s.empty_gold_blocks)}")
    for qid, patterns in list(s.false_blocks.items())[:10]:
        print(f"  surveyed false block {qid}: {'; '.join(patterns)}")
    ck25 = next((g for g in catalog.graphs if g.name == "ck25"), None)
    at1 = at5 = ratio = top1 = agreement = float("nan")
    if ck25 is not None:
        at1, at5 = _entity_recall(ck25, work)
        top1, agreement = _bridge(ck25, work)
    ratio = _latency(args.names, args.queries, work)
    print(
        f"RESULT survey_domain_precision={precision:.4f} survey_domain_recall={recall:.4f} "
        f"retention_surveyed={_f(s.retention)} detection_surveyed={_f(s.detection)} "
        f"false_blocks_surveyed={len(s.false_blocks)} blocks_surveyed_of_empty_gold={len(s.empty_gold_blocks)} "
        f"retention_declared={_f(d.retention)} "
        f"detection_declared={_f(d.detection)} entity_recall_at1={at1:.4f} entity_recall_at5={at5:.4f} "
        f"search_p50_ratio={ratio:.1f} bridge_top1={top1:.0f} bridge_plan_agreement={agreement:.4f} {cost_fields}"
    )


def _f(value: float | None) -> str:
    return "nan" if value is None else f"{value:.4f}"


def _data_files(graph: BenchmarkGraph) -> list[Path]:
    """The graph's instance data without its ontology (``.owl`` files, CK25's prod-vocab)."""
    return [p for p in graph.files if p.suffix != ".owl" and "vocab" not in p.name]


def _fidelity(graph: BenchmarkGraph, args: argparse.Namespace) -> dict[str, Any]:
    questions = graph.questions[: args.limit_questions] if args.limit_questions else graph.questions
    with KnowledgeGraph(open_backend(data=list(graph.files))) as full:
        declared_index = build_schema_index(full._backend, induce=False)
        prefixes = dict(full.profile.prefixes)
        declared = measure_graph(
            graph.name,
            questions,
            ToolkitProbe(full, declared_index),
            declared_index,
            MeasureSettings(prefixes=prefixes),
        )
    with KnowledgeGraph(open_backend(data=_data_files(graph))) as data_only:
        survey = survey_source(data_only, source=graph.name)
        used = {row["p"].value for row in data_only.query("SELECT DISTINCT ?p WHERE { ?s ?p ?o }").rows}
        # Swaps are chosen by the declared ontology (the ground truth of a conflict); the surveyed index
        # must block them.
        surveyed = measure_graph(
            graph.name,
            questions,
            ToolkitProbe(data_only, survey.index),
            declared_index,
            MeasureSettings(prefixes=prefixes),
        )
        # A gold query that matches nothing in the data (Spider's network_1 types :highschooler, the data
        # :high_schooler) is blocked correctly: the measurement counts it apart from real false blocks.
    precision, recall = _domain_scores(declared_index, survey.index, used)
    print(f"measured {graph.name}: {len(survey.classes)} classes surveyed, {survey.requests} requests")
    return {
        "name": graph.name,
        "precision": precision,
        "recall": recall,
        "declared": declared,
        "surveyed": surveyed,
        "requests": survey.requests,
        "seconds": survey.seconds,
    }


def _domain_scores(declared: SchemaIndex, surveyed: SchemaIndex, used: set[str]) -> tuple[list[float], list[float]]:
    hierarchy = declared.hierarchy
    precision, recall = [], []
    for prop, entry in declared.properties.items():
        if not entry.domain or prop not in used:
            continue
        found = surveyed.properties.get(prop)
        guessed = found.domain if found is not None else frozenset()
        recall.append(
            sum(1 for d in entry.domain if any(d in hierarchy.ancestors(s) | {s} for s in guessed)) / len(entry.domain)
        )
        if guessed:
            precision.append(sum(1 for s in guessed if (hierarchy.ancestors(s) | {s}) & entry.domain) / len(guessed))
    return precision, recall


def _constants(sparql: str) -> set[str]:
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, URIRef):
            found.add(str(node))
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list | tuple | set):
            for value in node:
                walk(value)

    try:
        walk(prepareQuery(sparql).algebra)
    except Exception:
        return set()
    return found


def _ngrams(text: str, most: int = 8) -> Iterator[str]:
    words = re.findall(r"[\w@.%-]+", text)
    for n in range(1, most + 1):
        for start in range(len(words) - n + 1):
            yield " ".join(words[start : start + n])


def _entity_recall(graph: BenchmarkGraph, work: Path) -> tuple[float, float]:
    record = SourceRecord(name="ck25", data=tuple(_data_files(graph)))
    with SourceSet(Catalog(sources={"ck25": record}, default_source="ck25"), survey_dir=work / "er") as sources:
        opened = sources.get("ck25")
        fulltext = name_index(opened)
        kit = tool_view(opened.graph, opened.schema())
        memory = kit.context.label_index
        names: dict[str, list[str]] = {}
        reads = kit.context.reads()
        for entry in read_names(reads, kit.context.name_predicates, max_names_per_predicate=1_000_000):
            names.setdefault(entry.resource, []).append(entry.text)
        predicates = opened.graph.query("SELECT DISTINCT ?p WHERE { ?s ?p ?o }").rows
        classes = opened.graph.query("SELECT DISTINCT ?c WHERE { ?s a ?c }").rows
        schema_terms = {r["p"].value for r in predicates} | {r["c"].value for r in classes}
        hits = {"fulltext": [0, 0], "memory": [0, 0]}
        total = 0
        for question in graph.questions:
            for constant in _constants(question.sparql):
                if constant not in names or constant in schema_terms:
                    continue  # a class, a property or a resource without a name
                mention, score = max(
                    (
                        (
                            g,
                            max(
                                difflib.SequenceMatcher(None, g.casefold(), n.casefold()).ratio()
                                for n in names[constant]
                            ),
                        )
                        for g in _ngrams(question.question)
                    ),
                    key=lambda item: item[1],
                    default=("", 0.0),
                )
                if score < 0.6:
                    continue  # the question does not name it
                total += 1
                for label, index in (("fulltext", fulltext), ("memory", memory)):
                    found = [m.resource for m in index.search(mention, limit=5)]
                    hits[label][0] += found[:1] == [constant]
                    hits[label][1] += constant in found
    print(f"\nentity resolution on CK25 ({total} gold entity mentions):")
    for label, (one, five) in hits.items():
        print(f"  {label:8} recall@1 {one / total:.3f}  recall@5 {five / total:.3f}")
    return hits["fulltext"][0] / total, hits["fulltext"][1] / total


def _latency(count: int, queries: int, work: Path) -> float:
    path = work / "names.nt"
    chosen = synthetic_names(path, count, queries)
    started = time.perf_counter()
    with KnowledgeGraph(open_backend(data=[path])) as graph:
        # fulltext_names above the count: this side is the in-memory index a plain run used to build.
        caps = ToolCaps(names_per_predicate=count + 1, fulltext_names=count + 1)
        kit = tool_view(graph, SchemaIndex(), caps=caps)
        loaded = time.perf_counter()
        memory = kit.context.label_index
        built_memory = time.perf_counter()
        entries = read_names(
            kit.context.reads(), ("http://www.w3.org/2000/01/rdf-schema#label",), max_names_per_predicate=count + 1
        )
        fulltext = FullTextIndex.build(work / "names-ft", (NameEntry(e.resource, e.text, e.source) for e in entries))
        built_fulltext = time.perf_counter()
    timings: dict[str, list[float]] = {"fulltext": [], "memory": []}
    for query in with_typos(chosen, queries):
        for label, index in (("fulltext", fulltext), ("memory", memory)):
            t = time.perf_counter()
            index.search(query, limit=8)
            timings[label].append(time.perf_counter() - t)
    p50 = {label: statistics.median(values) for label, values in timings.items()}
    print(f"\nsearch latency over {len(memory)} names ({len(timings['memory'])} queries, half with a typo):")
    print(
        f"  store load {loaded - started:.1f} s; in-memory index built in {built_memory - loaded:.1f} s; "
        f"full-text index built in {built_fulltext - built_memory:.1f} s (once, then opened)"
    )
    print(f"  p50 full-text {p50['fulltext'] * 1000:.2f} ms, in-memory {p50['memory'] * 1000:.1f} ms")
    return p50["memory"] / p50["fulltext"]


def _survey_cost(entities: int, work: Path) -> dict[str, str]:
    """One survey of the generated graph in the embedded store and over a loopback endpoint, side by side."""
    here = work / "survey-cost"
    (here / "oxigraph").mkdir(parents=True)
    try:
        nt = here / "survey-graph.nt"
        triples = generate_graph(nt, entities)
        limits = SurveyLimits()
        bound = limits.max_requests()
        figures: dict[str, str] = {"survey_triples": str(triples), "survey_request_bound": str(bound)}
        with KnowledgeGraph(open_backend(data=[nt])) as embedded:
            survey = survey_source(embedded, source="bench", limits=limits)
        figures.update(survey_requests_embedded=str(survey.requests), survey_seconds_embedded=f"{survey.seconds:.2f}")
        print(f"\nsurvey cost over {triples} triples (at most {bound} requests by the limits):")
        print(f"  embedded: {survey.requests} requests, {survey.seconds:.2f} s, {len(survey.classes)} classes")
        if oxigraph_binary() is None:
            print("  loopback endpoint: skipped (no oxigraph CLI)")
            return figures
        with (
            oxigraph_server(nt, here / "oxigraph") as server,
            KnowledgeGraph(open_backend(endpoint=server.url)) as remote,
        ):
            survey = survey_source(remote, source="bench-http", limits=limits)
        figures.update(survey_requests_http=str(survey.requests), survey_seconds_http=f"{survey.seconds:.2f}")
        print(f"  loopback oxigraph serve-read-only: {survey.requests} requests, {survey.seconds:.2f} s")
        within = all(int(figures[k]) <= bound for k in ("survey_requests_embedded", "survey_requests_http"))
        figures["survey_requests_within_bound"] = str(within).lower()
        return figures
    finally:
        shutil.rmtree(here, ignore_errors=True)  # ~1M triples, twice: not left in /tmp


def _bridge(graph: BenchmarkGraph, work: Path) -> tuple[float, float]:
    fixture = split_graph(_data_files(graph)[0], work / "bridge", split_class=PV + "Supplier", id_property=PV + "id")
    catalog = Catalog(
        sources={
            "products": SourceRecord(name="products", data=(fixture.left,)),
            "suppliers": SourceRecord(name="suppliers", data=(fixture.right,)),
            "whole": SourceRecord(name="whole", data=tuple(_data_files(graph))),
        },
        default_source="whole",
    )
    with SourceSet(catalog, survey_dir=work / "bridge-cache", toolboxes=open_source_toolbox) as sources:
        started = time.perf_counter()
        result = bridge_sources(sources, "products", "suppliers")
        seconds = time.perf_counter() - started
        top = result.candidates[0]
        top1 = float(
            (top.kind, top.left_class, top.left_property, top.right_property)
            == ("shared_value", PV + "Supplier", PV + "id", PV + "id")
        )
        products = execute_on_source(sources, "whole", f"SELECT ?p WHERE {{ ?p <{PV}hasSupplier> ?s }} LIMIT 20")
        agree = asked = 0
        for row in products.result.rows if products.result else []:
            product = row["p"].value
            single = execute_on_source(
                sources, "whole", f"SELECT ?c WHERE {{ <{product}> <{PV}hasSupplier>/<{PV}addressCountry> ?c }}"
            )
            keys = execute_on_source(
                sources,
                "products",
                f"SELECT ?key WHERE {{ <{product}> <{PV}hasSupplier> ?x . ?x <{top.left_property}> ?key }}",
            )
            values = " ".join(string_literal(r["key"].value) for r in (keys.result.rows if keys.result else []))
            joined = execute_on_source(
                sources,
                "suppliers",
                f"SELECT ?c WHERE {{ VALUES ?key {{ {values} }} ?y <{top.right_property}> ?key ; "
                f"<{PV}addressCountry> ?c }}",
            )
            asked += 1
            expected = {r["c"].value for r in (single.result.rows if single.result else [])}
            agree += expected == {r["c"].value for r in (joined.result.rows if joined.result else [])} and bool(
                expected
            )
    print(f"\nbridging CK25 split along pv:Supplier ({fixture.moved} moved) in {seconds:.1f} s:")
    print("  " + result.text.splitlines()[1])
    print(f"  two-step plan reproduced the single-graph answer for {agree}/{asked} products")
    return top1, agree / asked if asked else float("nan")


if __name__ == "__main__":
    main()

"""Pattern retrieval (MARS) without an LLM: recall@N per ranking, tokens, and cost.

* **Recall@5/10/20** of the gold ``(entity, property, direction)`` patterns of every gold query
  with a constant entity (bench.grounding_eval.pattern_recall), on TEXT2SPARQL'25 CK25 and the
  Spider4SPARQL graphs found under --data-dir, for each ranking: the embedding model(s),
  BM25, degree order (what a plain lookup lists first) and a seeded shuffle. The patterns of
  all of a question's gold entities are pooled and ranked together, as the pipeline does.
* **Tokens** (cl100k_base) of the top-20 enriched pattern context of an entity against the
  compact lookup and SPINACH's raw JSON of the same entity, by neighbourhood size.
* **Cost**: seconds per question for retrieval + ranking on the highest-degree entities of the
  ~1M-triple bench graph (bench/store_latency.py's generator), warm and cold embedding cache.

Recall is also measured on the offline Wikidata store (built into a scratch directory, or
--wikidata-store DIR), for the gold patterns of QALD / WikiWebQuestions / SPINACH questions whose
entity's neighbourhood the store holds in full: CoDEx-M entities and relations, the pattern
present (bench.grounding_eval.wikidata_patterns says why SPINACH's pruned lookups do not
count). A seeded sample of --wikidata-questions questions; its figures are the `wikidata` row and are
pooled into `overall`.

Usage: python bench/patterns.py --data-dir ../shared/data [--limit-questions N] [--models minilm,e5]
       [--wikidata-questions N] [--wikidata-store DIR] [--no-wikidata]
"""

from __future__ import annotations

import argparse
import logging
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

from saga_kgqa.benchmarks.datasets import BenchmarkGraph, discover_graphs
from saga_kgqa.dialects import WIKIDATA_DIALECT
from saga_kgqa.dialects.wikidata_store import build_wikidata_store
from saga_kgqa.errors import SagaError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: bench.grounding_eval
from bench.grounding_eval.measurement import TokenSample
from bench.grounding_eval.pattern_recall import CUTOFFS, RecallTally, gold_patterns
from bench.grounding_eval.probe import ToolkitProbe
from bench.grounding_eval.report import aligned, token_table
from bench.grounding_eval.tokens import count_tokens
from bench.grounding_eval.wikidata_patterns import CodexNeighbourhoods, select_questions, wikidata_questions
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.embedded.store import EmbeddedStore, load_files
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.schema import build_dialect_index, build_schema_index
from saga_kgqa.tools.context import ToolContext
from saga_kgqa.tools.patterns.embeddings import CachedEmbeddings, EmbeddingRuntime, build_embeddings
from saga_kgqa.tools.patterns.enrichment import EnrichSettings, enrich, render_patterns
from saga_kgqa.tools.patterns.ranking import BM25Ranking, DegreeRanking, EmbeddingRanking, RandomRanking, Ranking
from saga_kgqa.tools.patterns.retrieval import retrieve_many, retrieve_patterns
from smoke import cap, first, reuse, reuse_store, shrink

TOP_N = 20


def main() -> None:
    """Measure every graph present, print the tables and the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--limit-questions", type=int, default=None, help="first N questions of each graph")
    parser.add_argument("--models", default="minilm,e5", help="embedding runtimes compared (minilm, e5)")
    parser.add_argument("--token-entities", type=int, default=3, help="entities per question measured for tokens")
    parser.add_argument(
        "--cost-entities", type=int, default=100_000, help="entities of the cost graph (~10 triples each)"
    )
    parser.add_argument("--cost-questions", type=int, default=10, help="highest-degree entities timed")
    parser.add_argument("--wikidata-questions", type=int, default=300, help="seeded sample of Wikidata questions")
    parser.add_argument("--wikidata-store", type=Path, default=None, help="a built offline store (else built)")
    parser.add_argument("--no-wikidata", action="store_true", help="skip the offline Wikidata store")
    parser.add_argument("--seed", type=int, default=0, help="seed of the Wikidata sample")
    args = shrink(
        parser.parse_args(),
        limit_questions=2,
        token_entities=1,
        cost_entities=300,
        cost_questions=1,
        wikidata_questions=3,
        models="minilm",
    )
    console = Console(width=200, markup=False, highlight=False)
    models: list[EmbeddingRuntime] = [m for m in args.models.split(",") if m in ("minilm", "e5")]  # type: ignore[misc]
    embedders = {name: build_embeddings(name) for name in models}
    rankings: list[Ranking] = [EmbeddingRanking(e, name=f"embedding:{n}") for n, e in embedders.items()]
    rankings += [BM25Ranking(), DegreeRanking(), RandomRanking(0)]

    catalog = discover_graphs(args.data_dir)
    for name, questions in catalog.absent_graphs.items():
        console.print(f"skipped {name}: graph absent ({questions} questions)")
    per_graph: dict[str, RecallTally] = {}
    tokens: list[TokenSample] = []
    lookup_tokens: list[TokenSample] = []
    started = time.perf_counter()
    for graph in first(catalog.graphs):
        tally = _measure(graph, args, rankings, tokens, lookup_tokens)
        group = "ck25" if graph.name == "ck25" else "spider"
        per_graph.setdefault(group, RecallTally()).merge(tally)
        console.print(f"measured {graph.name} ({time.perf_counter() - started:.0f} s elapsed)")
    if not args.no_wikidata:
        per_graph["wikidata"] = _measure_wikidata(args, rankings, console)
        console.print(f"measured the offline Wikidata store ({time.perf_counter() - started:.0f} s elapsed)")
    overall = RecallTally()
    for tally in per_graph.values():
        overall.merge(tally)
    _print_recall(console, {**per_graph, "overall": overall}, [r.name for r in rankings])
    console.print("\ntokens (cl100k_base), top-20 enriched patterns vs SPINACH raw JSON, by neighbourhood size:")
    console.print(token_table(tokens))
    console.print("\ntokens, compact lookup vs SPINACH raw JSON, the same entities:")
    console.print(token_table(lookup_tokens))
    warm, cold = _cost(args, embedders.get("minilm") or next(iter(embedders.values()), None), console)
    main_model = f"embedding:{models[0]}" if models else "bm25"
    raw = sum(s.raw_tokens for s in tokens)
    ratio = sum(s.compact_tokens for s in tokens) / raw if raw else float("nan")
    fields = {
        "recall_at20_embedding": overall.recall(main_model, 20),
        "recall_at20_embedding_ck25": per_graph.get("ck25", RecallTally()).recall(main_model, 20),
        "recall_at20_embedding_wikidata": per_graph.get("wikidata", RecallTally()).recall(main_model, 20),
        "recall_at20_bm25": overall.recall("bm25", 20),
        "recall_at20_bm25_wikidata": per_graph.get("wikidata", RecallTally()).recall("bm25", 20),
        "recall_at20_degree": overall.recall("degree", 20),
        "recall_at20_degree_wikidata": per_graph.get("wikidata", RecallTally()).recall("degree", 20),
        # CoDEx neighbourhoods are small (median pool 11), so top 20 holds nearly all: top 5 is what tells.
        "recall_at5_embedding_wikidata": per_graph.get("wikidata", RecallTally()).recall(main_model, 5),
        "recall_at5_bm25_wikidata": per_graph.get("wikidata", RecallTally()).recall("bm25", 5),
        "recall_at5_degree_wikidata": per_graph.get("wikidata", RecallTally()).recall("degree", 5),
        "recall_at5_random_wikidata": per_graph.get("wikidata", RecallTally()).recall("random", 5),
        "recall_at20_random": overall.recall("random", 20),
        "tokens_ratio_vs_raw": ratio,
        "seconds_per_question_warm": warm,
        "seconds_per_question_cold": cold,
    }
    print("RESULT " + " ".join(f"{k}={_fmt(v)}" for k, v in fields.items()))


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _measure(
    graph: BenchmarkGraph,
    args: argparse.Namespace,
    rankings: list[Ranking],
    tokens: list[TokenSample],
    lookup_tokens: list[TokenSample],
) -> RecallTally:
    questions = graph.questions[: args.limit_questions] if args.limit_questions is not None else graph.questions
    backend = open_backend(data=list(graph.files))
    tally = RecallTally()
    with KnowledgeGraph(backend) as kg:
        schema = build_schema_index(backend, induce=False)
        context = ToolContext(kg, schema)
        probe = ToolkitProbe(kg, schema)
        measured: set[str] = set()
        for question in questions:
            try:
                gold = gold_patterns(question.qid, question.question, question.sparql, kg, dict(kg.profile.prefixes))
            except SagaError:
                continue
            patterns = retrieve_many(context, gold.entities).patterns
            tally.add(gold, patterns, rankings)
            for entity in gold.entities[: args.token_entities]:
                if entity not in measured:
                    measured.add(entity)
                    _tokens(context, probe, rankings[0], question.question, entity, tokens, lookup_tokens)
    return tally


def _measure_wikidata(args: argparse.Namespace, rankings: list[Ranking], console: Console) -> RecallTally:
    """Recall on the offline Wikidata store, for the gold patterns within full CoDEx-M neighbourhoods."""
    # rdflib logs every gold literal it cannot convert ("2018-00-00" dates); the gold patterns do not need them.
    logging.getLogger("rdflib.term").setLevel(logging.CRITICAL)
    scratch: Path | None = None
    store = args.wikidata_store
    if store is None:
        scratch = Path(tempfile.mkdtemp(prefix="saga-bench-patterns-wd-"))
        store = scratch / "store"
        report = reuse_store(
            f"wikidata store {args.data_dir}",
            store,
            lambda d: build_wikidata_store(args.data_dir, d, per_source=cap(2000)),
        )
        console.print(f"built the offline Wikidata store: {report.triples} triples")
    tally = RecallTally()
    try:
        schema = reuse(
            f"wikidata index {args.data_dir}", lambda: build_dialect_index("wikidata", data_dir=args.data_dir)
        )
        with KnowledgeGraph(EmbeddedStore(store, profile=get_profile("wikidata"))) as kg:
            codex = CodexNeighbourhoods.read(args.data_dir)
            sample = select_questions(
                first(wikidata_questions(args.data_dir), 40),
                kg,
                codex,
                size=args.wikidata_questions,
                seed=args.seed,
            )
            context = ToolContext(kg, schema, dialect=WIKIDATA_DIALECT)
            console.print(f"Wikidata questions sampled: {len(sample)} (seed {args.seed})")
            for gold in sample:
                tally.add(gold, retrieve_many(context, gold.entities).patterns, rankings)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    return tally


def _tokens(
    context: ToolContext,
    probe: ToolkitProbe,
    ranking: Ranking,
    question: str,
    entity: str,
    tokens: list[TokenSample],
    lookup_tokens: list[TokenSample],
) -> None:
    found = retrieve_patterns(context, entity)
    top = ranking.rank(question, found.patterns)[:TOP_N]
    text = render_patterns(enrich(context, top, EnrichSettings()), found.notes)
    raw, values = probe.raw_neighbourhood(entity)
    raw_tokens = count_tokens(raw)
    tokens.append(TokenSample(entity, values, count_tokens(text), raw_tokens))
    lookup_tokens.append(TokenSample(entity, values, count_tokens(probe.lookup(entity, "subclass").text), raw_tokens))


def _print_recall(console: Console, tallies: dict[str, RecallTally], names: list[str]) -> None:
    console.print("\npattern recall@N (gold (entity, property, direction) within the top N of the pooled patterns)")
    headers = ["graphs", "qs", "gold", "retrievable", "pool p50", *[f"{n}@{c}" for n in names for c in CUTOFFS]]
    rows = []
    for group, tally in tallies.items():
        pool = statistics.median(tally.pool_sizes) if tally.pool_sizes else 0
        cells = [_fmt(tally.recall(n, c)) for n in names for c in CUTOFFS]
        rows.append([group, str(tally.questions), str(tally.gold), str(tally.retrievable), f"{pool:.0f}", *cells])
    console.print(aligned(headers, rows))


def _cost(args: argparse.Namespace, embedder: object, console: Console) -> tuple[float | None, float | None]:
    """Seconds per question (retrieve + rank) on the bench graph's highest-degree entities."""
    if not isinstance(embedder, CachedEmbeddings):
        return None, None
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from store_latency import EX, generate_graph

    work = Path(tempfile.mkdtemp(prefix="saga-bench-patterns-"))
    try:
        nt = work / "graph.nt"
        triples = generate_graph(nt, args.cost_entities)
        load_files(work / "store", [nt])
        backend = EmbeddedStore(work / "store")
        with KnowledgeGraph(backend) as kg:
            schema = build_schema_index(backend, induce=False)
            context = ToolContext(kg, schema)
            rows = kg.query(
                "SELECT ?e (COUNT(*) AS ?n) WHERE { ?s ?p ?e FILTER(isIRI(?e)) } GROUP BY ?e ORDER BY DESC(?n) "
                f"LIMIT {args.cost_questions}"
            ).rows
            entities = [row["e"].value for row in rows]
            ranking = EmbeddingRanking(embedder)
            cold: list[float] = []
            warm: list[float] = []
            for index, entity in enumerate(entities):
                question = f"Which things have property {index} with {entity.removeprefix(EX)}?"
                for times, clear in ((cold, True), (warm, False)):
                    if clear:
                        embedder.clear()
                    began = time.perf_counter()
                    ranking.rank(question, retrieve_patterns(context, entity).patterns)
                    times.append(time.perf_counter() - began)
            console.print(
                f"\ncost on {triples} triples, {len(entities)} highest-degree entities: "
                f"cold p50 {statistics.median(cold):.3f} s, warm p50 {statistics.median(warm):.3f} s per question"
            )
            return statistics.median(warm), statistics.median(cold)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

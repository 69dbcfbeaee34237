"""How much of a gold query the top-k retrieved examples show, LLM-free (issue 25).

For each train -> test pair, every test question retrieves the k nearest examples from the
train side (embedding with the patterns room's runtime, BM25, random); the figure is the
share of the gold query's properties, classes and features (COUNT, ORDER BY, FILTER, ASK,
subquery, GROUP BY, LIMIT) that appear in those k queries, averaged over the questions that
need any. Beside the mean, the worst case: the share of questions whose top-k shows none of
the gold's properties. The train side is screened by the leakage guard against the test
side first (QALD-9-plus train and QALD-10 share questions); leave-one-out pairs drop the
question itself and any example with its question or query.

Pairs: QALD-9-plus train -> its test and -> QALD-10; WikiWebQuestions train -> dev; CK25
leave-one-out over the graph's own published examples (``queries.ttl``); Spider4SPARQL
other databases -> this one, and same-database leave-one-out. Nothing here was tuned: the
rankings are the patterns room's, k is the issue's 5.

Usage: python bench/examples.py --data-dir ../shared/data [--k 5] [--limit N] [--runtime minilm]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from saga_kgqa.eval.loaders import load_benchmark
from saga_kgqa.eval.qa.questions import BenchmarkQuestion
from saga_kgqa.eval.tokens import count_tokens
from saga_kgqa.examples.coverage import Signature, covered, signature
from saga_kgqa.examples.harvest import from_benchmark, harvest_files
from saga_kgqa.examples.index import ExampleIndex, ExampleRanking, render_examples
from saga_kgqa.examples.leakage import LeakageGuard
from saga_kgqa.examples.model import QueryExample
from saga_kgqa.tools.patterns.embeddings import build_embeddings

RANKINGS: tuple[ExampleRanking, ...] = ("embedding", "bm25", "random")


@dataclass
class Tally:
    """Per-question coverages of one ranking on one pair."""

    properties: list[float] = field(default_factory=list)
    classes: list[float] = field(default_factory=list)
    features: list[float] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)

    def add(self, gold: Signature, shown: Sequence[QueryExample], signatures: dict[str, Signature]) -> None:
        """Score one question's top-k."""
        seen = [signatures.setdefault(e.sparql, signature(e.sparql)) for e in shown]
        for values, needed, got in (
            (self.properties, gold.properties, [s.properties for s in seen]),
            (self.classes, gold.classes, [s.classes for s in seen]),
            (self.features, gold.features, [s.features for s in seen]),
        ):
            share = covered(needed, got)
            if share is not None:
                values.append(share)
        self.tokens.extend(count_tokens(render_examples([e])) for e in shown)


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


Pool = Callable[[BenchmarkQuestion], Sequence[QueryExample]]


def _measure(
    name: str, questions: Sequence[BenchmarkQuestion], pool: Pool, k: int, embeddings: object
) -> dict[ExampleRanking, Tally]:
    signatures: dict[str, Signature] = {}
    tallies: dict[ExampleRanking, Tally] = {r: Tally() for r in RANKINGS}
    indexes: dict[tuple[int, ExampleRanking], ExampleIndex] = {}
    for question in questions:
        if not question.gold_sparql:
            continue
        gold = signatures.setdefault(question.gold_sparql, signature(question.gold_sparql))
        examples = pool(question)
        for ranking in RANKINGS:
            key = (id(examples), ranking)
            if key not in indexes:  # one index per distinct pool (shared pools are one object)
                indexes[key] = ExampleIndex(examples, ranking=ranking, embeddings=embeddings)  # type: ignore[arg-type]
            tallies[ranking].add(gold, indexes[key].examples_for(question.question, k), signatures)
        if len(indexes) > 3 * len(RANKINGS) * 4:
            indexes.clear()  # leave-one-out pools are per question: keep memory flat
    figures = " ".join(
        f"{r}: P={_mean(t.properties):.3f} C={_mean(t.classes):.3f} F={_mean(t.features):.3f}"
        for r, t in tallies.items()
    )
    print(f"{name:<34} n={len(questions):<5} {figures}")
    return tallies


def _screened(train: list[QueryExample], test: Sequence[BenchmarkQuestion], name: str) -> list[QueryExample]:
    report = LeakageGuard(test).screen(train)
    if report.refused:
        print(f"  {name}: leakage guard refused {len(report.refused)} of {len(train)} train examples")
    return report.kept


def _leave_one_out(pool: list[QueryExample]) -> Pool:
    def without(question: BenchmarkQuestion) -> list[QueryExample]:
        return LeakageGuard([question]).screen(pool).kept

    return without


def main() -> None:
    """Measure every pair, print per pair and ranking, end with the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--limit", type=int, default=None, help="test questions per pair (development)")
    parser.add_argument("--runtime", choices=("minilm", "e5"), default="minilm")
    args = parser.parse_args()
    # rdflib warns about every Spider4SPARQL IRI with an escaped '#'; the signatures read them correctly.
    logging.getLogger("rdflib").setLevel(logging.ERROR)
    started = time.perf_counter()
    embeddings = build_embeddings(args.runtime)
    data = args.data_dir

    def questions(name: str) -> list[BenchmarkQuestion]:
        return list(load_benchmark(name, data).questions)

    limit = args.limit
    results: dict[str, dict[ExampleRanking, Tally]] = {}
    qald_train = from_benchmark(questions("qald9plus-train"), "qald9plus-train")
    wwq_train = from_benchmark(questions("wwq-train"), "wwq-train")
    for name, train, test_name in (
        ("qald9plus-train->test", qald_train, "qald9plus-test"),
        ("qald9plus-train->qald10", qald_train, "qald10"),
        ("wwq-train->dev", wwq_train, "wwq-dev"),
    ):
        test = questions(test_name)[:limit]
        pool = _screened(train, test, name)
        results[name] = _measure(name, test, lambda _q, p=pool: p, args.k, embeddings)

    ck25 = questions("ck25")[:limit]
    published = harvest_files([data / "text2sparql_ck25" / "queries.ttl"])
    results["ck25-loo"] = _measure(
        "ck25 leave-one-out (queries.ttl)", ck25, _leave_one_out(published), args.k, embeddings
    )

    spider = questions("spider4sparql-dev")
    by_graph: dict[str, list[BenchmarkQuestion]] = defaultdict(list)
    for question in spider:
        by_graph[question.graph or ""].append(question)
    examples_by_graph = {g: from_benchmark(qs, g) for g, qs in by_graph.items()}
    others = {g: [e for h, ex in examples_by_graph.items() if h != g for e in ex] for g in by_graph}
    same = {g: _leave_one_out(ex) for g, ex in examples_by_graph.items()}
    test_spider = [q for qs in by_graph.values() for q in qs[: limit or None]]
    results["spider-other-db"] = _measure(
        "spider4sparql other dbs -> this", test_spider, lambda q: others[q.graph or ""], args.k, embeddings
    )
    results["spider-same-db-loo"] = _measure(
        "spider4sparql same db leave-one-out", test_spider, lambda q: same[q.graph or ""](q), args.k, embeddings
    )

    fields = [f"k={args.k}"]
    order_holds = []
    for pair, tallies in results.items():
        e, b, r = (tallies[x] for x in RANKINGS)
        fields.append(
            f"{pair}:prop={_mean(e.properties):.3f}/{_mean(b.properties):.3f}/{_mean(r.properties):.3f}"
            f",feat={_mean(e.features):.3f}/{_mean(b.features):.3f}/{_mean(r.features):.3f}"
            f",none={sum(v == 0 for v in e.properties) / max(len(e.properties), 1):.3f}"
            f",tok={_mean(e.tokens):.0f}"
        )
        order_holds.append(_mean(e.properties) >= _mean(b.properties) >= _mean(r.properties))
    fields.append(f"emb>=bm25>=random_on={sum(order_holds)}/{len(order_holds)}")
    print(
        f"(P/C/F: top-{args.k} coverage of gold properties/classes/features; emb/bm25/random; "
        "none = share of questions whose embedding top-k shows no gold property; "
        f"{time.perf_counter() - started:.0f} s)"
    )
    print("RESULT " + " ".join(fields))


if __name__ == "__main__":
    main()

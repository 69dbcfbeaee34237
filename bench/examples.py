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
other databases -> this one, and same-database leave-one-out.

Rankings: ``embedding`` and ``bm25`` as the product runs them (words plus structure: the
question's skeleton and the form prior of :mod:`saga_kgqa.examples.index`), ``random``, and the
words-only ablations ``emb-words`` and ``bm25-words``. The structure weights were chosen with
``--tune`` only: a seeded 20 % of QALD-9-plus train and of WikiWebQuestions train as questions
against the other 80 %; no test, dev, QALD-10, CK25 or Spider4SPARQL figure was looked at.

Usage: python bench/examples.py --data-dir ../shared/data [--k 5] [--limit N] [--runtime minilm] [--tune]
"""

from __future__ import annotations

import argparse
import itertools
import logging
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from saga_kgqa.eval.loaders import load_benchmark
from saga_kgqa.eval.qa.questions import BenchmarkQuestion
from saga_kgqa.eval.tokens import count_tokens
from saga_kgqa.examples.coverage import Signature, covered, signature
from saga_kgqa.examples.harvest import from_benchmark, harvest_files
from saga_kgqa.examples.index import WORDS_ONLY, ExampleIndex, ExampleRanking, StructureWeights, render_examples
from saga_kgqa.examples.leakage import LeakageGuard
from saga_kgqa.examples.model import QueryExample
from saga_kgqa.tools.patterns.embeddings import build_embeddings

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

#: (column, ranking, structure weights): the product's two rankings, the floor, the words-only ablations.
Variant = tuple[str, ExampleRanking, StructureWeights]
VARIANTS: tuple[Variant, ...] = (
    ("embedding", "embedding", StructureWeights()),
    ("bm25", "bm25", StructureWeights()),
    ("random", "random", WORDS_ONLY),
    ("emb-words", "embedding", WORDS_ONLY),
    ("bm25-words", "bm25", WORDS_ONLY),
)


@dataclass
class Tally:
    """Per-question coverages of one ranking on one pair."""

    properties: list[float] = field(default_factory=list)
    classes: list[float] = field(default_factory=list)
    features: list[float] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)

    def add(self, gold: Signature, shown: Sequence[QueryExample], *, tokens: bool = True) -> None:
        """Score one question's top-k."""
        seen = [signature(e.sparql) for e in shown]
        for values, needed, got in (
            (self.properties, gold.properties, [s.properties for s in seen]),
            (self.classes, gold.classes, [s.classes for s in seen]),
            (self.features, gold.features, [s.features for s in seen]),
        ):
            share = covered(needed, got)
            if share is not None:
                values.append(share)
        if tokens:
            self.tokens.extend(count_tokens(render_examples([e])) for e in shown)


class _QueryCache:
    """The bench's embedder: question vectors kept by text too (the same test question is asked per variant)."""

    def __init__(self, inner: Embeddings) -> None:
        self._inner = inner
        self._queries: dict[str, list[float]] = {}

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        if text not in self._queries:
            self._queries[text] = self._inner.embed_query(text)
        return self._queries[text]


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


Pool = Callable[[BenchmarkQuestion], Sequence[QueryExample]]


def _measure(
    name: str,
    questions: Sequence[BenchmarkQuestion],
    pool: Pool,
    k: int,
    embeddings: object,
    variants: Sequence[Variant] = VARIANTS,
    *,
    quiet: bool = False,
) -> dict[str, Tally]:
    tallies: dict[str, Tally] = {label: Tally() for label, _r, _w in variants}
    indexes: dict[tuple[int, str], ExampleIndex] = {}
    for question in questions:
        if not question.gold_sparql:
            continue
        gold = signature(question.gold_sparql)
        examples = pool(question)
        for label, ranking, weights in variants:
            key = (id(examples), label)
            if key not in indexes:  # one index per distinct pool (shared pools are one object)
                indexes[key] = ExampleIndex(
                    examples,
                    ranking=ranking,
                    embeddings=embeddings,  # type: ignore[arg-type]
                    structure=weights,
                )
            tallies[label].add(gold, indexes[key].examples_for(question.question, k), tokens=not quiet)
        if len(indexes) > 4 * len(variants) * 4:
            indexes.clear()  # leave-one-out pools are per question: keep memory flat
    if not quiet:
        figures = " ".join(
            f"{label}: P={_mean(t.properties):.3f} C={_mean(t.classes):.3f} F={_mean(t.features):.3f}"
            for label, t in tallies.items()
        )
        print(f"{name:<34} n={len(questions):<5} {figures}", flush=True)
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


def _dev_split(questions: Sequence[BenchmarkQuestion], name: str) -> tuple[list[BenchmarkQuestion], list[QueryExample]]:
    """A seeded 20 % of a train split as questions, the other 80 % (screened against them) as the pool."""
    shuffled = [q for q in questions if q.gold_sparql]
    random.Random(25).shuffle(shuffled)
    cut = len(shuffled) // 5
    dev, rest = shuffled[:cut], shuffled[cut:]
    return dev, LeakageGuard(dev).screen(from_benchmark(rest, name)).kept


def _tune(questions: Callable[[str], list[BenchmarkQuestion]], k: int, embeddings: object, limit: int | None) -> None:
    """Grid the structure weights on the dev parts of the train splits (nothing else is read)."""
    splits = [_dev_split(questions(name), name) for name in ("qald9plus-train", "wwq-train")]
    grid: list[Variant] = [("random", "random", WORDS_ONLY)]
    for mix, cue, diversity in itertools.product((0.0, 0.5), (0.2,), (0.0, 0.05, 0.1, 0.2)):
        weights = StructureWeights(skeleton=mix, cue=cue, diversity=diversity)
        ranking: ExampleRanking = "embedding" if mix else "bm25"
        grid.append((f"{ranking} s={mix} c={cue} d={diversity}", ranking, weights))
    tallies = [
        _measure(f"dev{i}", dev[:limit], lambda _q, p=pool: p, k, embeddings, grid, quiet=True)
        for i, (dev, pool) in enumerate(splits)
    ]
    print(f"dev parts: qald9plus-train n={len(splits[0][0])}, wwq-train n={len(splits[1][0])} (seed 25, 20 %)")
    for label, _r, _w in grid:
        figures = [(_mean(t[label].properties), _mean(t[label].features)) for t in tallies]
        score = statistics.fmean(v for pair in figures for v in pair)
        print(f"{label:<28} " + " ".join(f"P={p:.3f} F={f:.3f}" for p, f in figures) + f" mean={score:.4f}")


def main() -> None:
    """Measure every pair, print per pair and ranking, end with the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--limit", type=int, default=None, help="test questions per pair (development)")
    parser.add_argument("--runtime", choices=("minilm", "e5"), default="minilm")
    parser.add_argument("--tune", action="store_true", help="grid the structure weights on the train dev parts only")
    args = parser.parse_args()
    # rdflib warns about every Spider4SPARQL IRI with an escaped '#'; the signatures read them correctly.
    logging.getLogger("rdflib").setLevel(logging.ERROR)
    started = time.perf_counter()
    embeddings = _QueryCache(build_embeddings(args.runtime))
    data = args.data_dir

    def questions(name: str) -> list[BenchmarkQuestion]:
        return list(load_benchmark(name, data).questions)

    if args.tune:
        _tune(questions, args.k, embeddings, args.limit)
        return
    limit = args.limit
    results: dict[str, dict[str, Tally]] = {}
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
        e, b, r, ew, bw = (tallies[label] for label, _r, _w in VARIANTS)
        fields.append(
            f"{pair}:prop={_mean(e.properties):.3f}/{_mean(b.properties):.3f}/{_mean(r.properties):.3f}"
            f",feat={_mean(e.features):.3f}/{_mean(b.features):.3f}/{_mean(r.features):.3f}"
            f",words_only={_mean(ew.properties):.3f}/{_mean(bw.properties):.3f}|{_mean(ew.features):.3f}/{_mean(bw.features):.3f}"
            f",none={sum(v == 0 for v in e.properties) / max(len(e.properties), 1):.3f}"
            f",tok={_mean(e.tokens):.0f}"
        )
        for measure in ("properties", "features"):
            a, m, f = (_mean(getattr(t, measure)) for t in (e, b, r))
            order_holds.append(a > m > f)
    fields.append(f"emb>bm25>random_on={sum(order_holds)}/{len(order_holds)}")
    print(
        f"(P/C/F: top-{args.k} coverage of gold properties/classes/features; emb/bm25/random, then words-only "
        "emb/bm25 for properties|features; emb>bm25>random counts pairs x (properties, features); "
        "none = share of questions whose embedding top-k shows no gold property; "
        f"{time.perf_counter() - started:.0f} s)"
    )
    print("RESULT " + " ".join(fields))


if __name__ == "__main__":
    main()

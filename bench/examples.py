"""How much of a gold query the top-k retrieved examples show, LLM-free (issue 25).

For each train -> test pair, every test question retrieves the k nearest examples from the
train side (embedding with the patterns room's runtime, BM25, random); the figure is the
share of the gold query's properties, classes and features that appear in those k queries,
averaged over the questions that need any. Features are counted two ways: as issue 25 names them
(COUNT, ORDER BY, FILTER, ASK, subquery: ``F5``/``feat5``, which the ordering count reads) and with the
two more the retrieval also weighs (GROUP BY, LIMIT: ``F``/``feat``, every run's figure before the
seventh look). Beside the mean, the worst case: the share of questions whose top-k shows none of
the gold's properties. The train side is screened by the leakage guard against the test
side first (QALD-9-plus train and QALD-10 share questions); leave-one-out pairs drop the
question itself and any example with its question or query.

Pairs: QALD-9-plus train -> its test and -> QALD-10; WikiWebQuestions train -> dev; CK25
leave-one-out over the graph's own published examples (``queries.ttl``); Spider4SPARQL
other databases -> this one, and same-database leave-one-out. Beside them, counted apart
(``fresh_emb>bm25>random_on``), three pairs no tuning round had read when the fifth round named
them: WikiWebQuestions train -> SPINACH's WikiWebQuestions test, QALD-9-plus train -> QALD-7 test,
SPINACH dev -> SPINACH test; and DB25 leave-one-out (TEXT2SPARQL's DBpedia questions, each against the
others' gold queries), added in the sixth round.

Spider4SPARQL other databases: its databases share the namespace ``http://valuenet/ontop/`` but
no property IRI (``:singer#age`` exists in one database only), so the only gold property another
database's query can show is ``rdf:type`` and every ranking ties on property IRIs. What transfers
between databases is the column's role, so this pair also counts properties by local name (the
part after ``#``, else after the last ``/``: ``age`` in ``:people#age`` covers ``:singer#age``);
its ordering check uses that figure (``prop_local``) and its RESULT field carries both. Every other
pair is measured by IRI only.

Rankings: ``embedding`` and ``bm25`` as the product runs them, each with its own tuned weights
(:data:`~saga_kgqa.examples.index.EMBEDDING_STRUCTURE`, :data:`~saga_kgqa.examples.index.BM25_STRUCTURE`):
``embedding`` is a hybrid, the question similarity of the example index's model (e5 since the eighth round,
MiniLM before; ``--runtime``) with a share taken by the question's BM25
score, plus the form prior and the diversity of :mod:`saga_kgqa.examples.index`; ``bm25`` is BM25 plus
the same form prior and diversity terms. ``random`` is the floor; ``emb-words`` and ``bm25-words``
are the words-only ablations (pure embedding, pure BM25).

Tuning (``--tune``): 5-fold cross-validation (seed 25) over the whole of QALD-9-plus train and of
WikiWebQuestions train, each fold's questions against the other four folds; nothing else is read (no
test, dev, QALD-10, CK25 or Spider4SPARQL figure). Each ranking is tuned on its own, for its best mean of
property and feature coverage over the two splits; the ordering is reported, never optimised.

Beside coverage, ``X`` is the share of the features the top-k's queries show that the gold query does not
have (shapes shown in vain), averaged over the questions whose top-k shows any.

Usage: python bench/examples.py --data-dir ../shared/data [--k 5] [--limit N] [--runtime minilm] [--tune]
       [--shape-predictors] [--runtime-dev]
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
import time
from collections import defaultdict
from pathlib import Path

from saga_kgqa.benchmarks.loaders import load_benchmark
from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.config.context import SagaContext
from saga_kgqa.examples.harvest import from_benchmark, harvest_files
from saga_kgqa.tools.patterns.embeddings import build_embeddings

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the modules beside this file, run as a script
from examples_dev import FOLDS, SEED, _folds, _runtime_dev, _shape_predictors, _tune, choose
from examples_tally import VARIANTS, Tally, _fixed, _leave_one_out, _mean, _measure, _QueryCache, _screened
from paired import Paired, paired
from smoke import first, shrink

#: Pairs whose property coverage is judged by local name (see the module docstring).
LOCAL_NAME_PAIRS = frozenset({"spider-other-db"})
#: Pairs no round of tuning had read when the fifth (DB25: sixth) round's protocol named them (reported apart
#: from the six of issue 25's "done when" point, which four rounds had read).
FRESH_PAIRS = frozenset({"wwq-train->test", "qald9plus-train->qald7-test", "spinach-dev->test", "db25-loo"})
#: The product's model for the example index (``SagaContext.examples_embedding_runtime``): the bench measures it.
_PRODUCT_RUNTIME = next(f.default for f in dataclasses.fields(SagaContext) if f.name == "examples_embedding_runtime")
__all__ = ["FOLDS", "SEED", "Tally", "_folds", "choose"]  # the tests read them here


def main() -> None:
    """Measure every pair, print per pair and ranking, end with the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--limit", type=int, default=None, help="test questions per pair (development)")
    parser.add_argument(
        "--runtime",
        choices=("minilm", "e5"),
        default=_PRODUCT_RUNTIME,
        help=f"the embedding ranking's model (default: the example index's, {_PRODUCT_RUNTIME})",
    )
    parser.add_argument("--tune", action="store_true", help="grid the structure weights on the train folds only")
    parser.add_argument(
        "--shape-predictors", action="store_true", help="Brier scores of the query-feature estimates (train folds)"
    )
    parser.add_argument(
        "--runtime-dev", action="store_true", help="the embedding ranking with each packaged model (train folds)"
    )
    args = shrink(parser.parse_args(), limit=2, runtime="minilm")  # smoke: the lighter packaged model
    # rdflib warns about every Spider4SPARQL IRI with an escaped '#' and keeps the backslash ("…/singer\\#age"),
    # alike in every query: IRI comparisons and local names (the part after '#') are unaffected.
    logging.getLogger("rdflib").setLevel(logging.ERROR)
    started = time.perf_counter()
    embeddings = _QueryCache(build_embeddings(args.runtime))
    data = args.data_dir

    def questions(name: str) -> list[BenchmarkQuestion]:
        return list(load_benchmark(name, data).questions)

    if args.tune:
        _tune(questions, args.k, embeddings, args.limit)
        return
    if args.shape_predictors:
        _shape_predictors(questions, embeddings)
        return
    if args.runtime_dev:
        _runtime_dev(questions, args.k, args.limit)
        return
    limit = args.limit
    results: dict[str, dict[str, Tally]] = {}
    qald_train = from_benchmark(questions("qald9plus-train"), "qald9plus-train")
    wwq_train = from_benchmark(questions("wwq-train"), "wwq-train")
    spinach_dev = from_benchmark(questions("spinach-dev"), "spinach-dev")
    for name, train, test_name in first(
        (
            ("qald9plus-train->test", qald_train, "qald9plus-test"),
            ("qald9plus-train->qald10", qald_train, "qald10"),
            ("wwq-train->dev", wwq_train, "wwq-dev"),
            ("wwq-train->test", wwq_train, "wwq-test"),  # this and the next two: FRESH_PAIRS
            ("qald9plus-train->qald7-test", qald_train, "qald7-test"),
            ("spinach-dev->test", spinach_dev, "spinach-test"),
        )
    ):
        test = questions(test_name)[:limit]
        pool = _screened(first(train, 10), test, name)  # smoke mode: a small pool
        results[name] = _measure(name, test, _fixed(pool), args.k, embeddings)

    ck25 = questions("ck25")[:limit]
    published = harvest_files([data / "text2sparql_ck25" / "queries.ttl"])
    results["ck25-loo"] = _measure(
        "ck25 leave-one-out (queries.ttl)", ck25, _leave_one_out(first(published, 10)), args.k, embeddings
    )
    db25 = questions("db25")
    results["db25-loo"] = _measure(
        "db25 leave-one-out", db25[:limit], _leave_one_out(first(from_benchmark(db25, "db25"), 10)), args.k, embeddings
    )

    spider = questions("spider4sparql-dev")
    by_graph: dict[str, list[BenchmarkQuestion]] = defaultdict(list)
    for question in spider:
        by_graph[question.graph or ""].append(question)
    by_graph = defaultdict(list, {g: first(qs, 10) for g, qs in first(by_graph.items(), 2)})  # smoke: two small dbs
    examples_by_graph = {g: from_benchmark(qs, g) for g, qs in by_graph.items()}
    others = {g: [e for h, ex in examples_by_graph.items() if h != g for e in ex] for g in by_graph}
    same = {g: _leave_one_out(ex) for g, ex in examples_by_graph.items()}
    test_spider = [q for qs in by_graph.values() for q in qs[: limit or None]]
    results["spider-other-db"] = _measure(
        "spider4sparql other dbs -> this",
        test_spider,
        lambda q: others[q.graph or ""],
        args.k,
        embeddings,
        by_local_name=True,
    )
    results["spider-same-db-loo"] = _measure(
        "spider4sparql same db leave-one-out", test_spider, lambda q: same[q.graph or ""](q), args.k, embeddings
    )

    fields = [f"k={args.k}", f"model={args.runtime}"]
    for pair, tallies in results.items():
        e, b, r, ew, bw = (tallies[label] for label, _r, _w in VARIANTS)
        local = (
            f",prop_local={_mean(e.properties_local):.3f}/{_mean(b.properties_local):.3f}"
            f"/{_mean(r.properties_local):.3f}"
            if pair in LOCAL_NAME_PAIRS
            else ""
        )
        fields.append(
            f"{pair}:prop={_mean(e.properties):.3f}/{_mean(b.properties):.3f}/{_mean(r.properties):.3f}{local}"
            f",feat5={_mean(e.issue_features):.3f}/{_mean(b.issue_features):.3f}/{_mean(r.issue_features):.3f}"
            f",feat={_mean(e.features):.3f}/{_mean(b.features):.3f}/{_mean(r.features):.3f}"
            f",words_only={_mean(ew.properties):.3f}/{_mean(bw.properties):.3f}|{_mean(ew.features):.3f}/{_mean(bw.features):.3f}"
            f",feat5_wins={paired(e.issue_features, b.issue_features).field()}"
            f",feat_wins={paired(e.features, b.features).field()}"
            f",none={sum(v == 0 for v in e.properties) / max(len(e.properties), 1):.3f}"
            f",tok={_mean(e.tokens):.0f}"
        )
    fields.extend(_order_fields(results))
    fields.extend(_pooled_fields(results))
    print(
        f"(P/C/F: top-{args.k} coverage of gold properties/classes/features; emb/bm25/random, then words-only "
        "emb/bm25 for properties|features (seven); F5/feat5 = the five features issue 25 names (COUNT, ORDER BY, "
        "FILTER, ASK, subquery), F/feat = seven (GROUP BY, LIMIT too); emb>bm25>random counts pairs x "
        "(properties, feat5), _7feat the same with the seven; "
        "spider-other-db's properties by local name (prop_local: no property IRI crosses its databases); "
        "X = share of the shown features the gold lacks; "
        "feat5_wins/feat_wins = questions where the embedding shows more gold features : where BM25 does, "
        "p = two-sided exact sign test over those questions; emb_vs_bm25_* = the same pooled over every pair; "
        "none = share of questions whose embedding top-k shows no gold property; "
        f"{time.perf_counter() - started:.0f} s)"
    )
    print("RESULT " + " ".join(fields))


def _order_fields(results: dict[str, dict[str, Tally]]) -> list[str]:
    """The RESULT fields counting the pairs x (properties, features) where embedding > BM25 > random holds.

    Features are read as issue 25 names them (five, ``issue_features``); the same count with the bench's
    seven features is printed beside it (``_7feat``). Spider's other-database pair reads properties by
    local name; the fresh pairs are counted apart from the "done when" pairs.
    """
    counts: dict[str, list[bool]] = defaultdict(list)
    for pair, tallies in results.items():
        e, b, r = (tallies[label] for label in ("embedding", "bm25", "random"))
        fresh = "fresh_" if pair in FRESH_PAIRS else ""
        properties = "properties_local" if pair in LOCAL_NAME_PAIRS else "properties"
        measures = ((properties, ""), ("issue_features", ""), (properties, "_7feat"), ("features", "_7feat"))
        for measure, suffix in measures:
            a, m, f = (_mean(getattr(t, measure)) for t in (e, b, r))
            counts[f"{fresh}emb>bm25>random_on{suffix}"].append(a > m > f)
    names = [f"{fresh}emb>bm25>random_on{suffix}" for fresh in ("", "fresh_") for suffix in ("", "_7feat")]
    return [f"{name}={sum(counts[name])}/{len(counts[name])}" for name in names]


def _pooled_fields(results: dict[str, dict[str, Tally]]) -> list[str]:
    """Embedding vs BM25 pooled over every pair's questions: wins, losses and the sign-test p.

    Per measure (properties -- by local name on Spider's other-database pair --, the five features, the
    seven), the questions where the two rankings' top-k cover different shares of the gold: how many the
    embedding wins, how many BM25 wins, and the two-sided exact sign test's p over them. The order of two
    means can hang on a few questions; these say how many, and how likely such a split is by chance.
    """
    pooled = {"prop": Paired(0, 0, 0), "feat5": Paired(0, 0, 0), "feat": Paired(0, 0, 0)}
    for pair, tallies in results.items():
        e, b = tallies["embedding"], tallies["bm25"]
        properties = "properties_local" if pair in LOCAL_NAME_PAIRS else "properties"
        for name, measure in (("prop", properties), ("feat5", "issue_features"), ("feat", "features")):
            pooled[name] = pooled[name] + paired(getattr(e, measure), getattr(b, measure))
    fields = []
    for name, counts in pooled.items():
        fields.append(f"emb_vs_bm25_{name}_wins={counts.wins}")
        fields.append(f"emb_vs_bm25_{name}_losses={counts.losses}")
        fields.append(f"emb_vs_bm25_{name}_sign_p={counts.p:.3g}")
    return fields


if __name__ == "__main__":
    main()

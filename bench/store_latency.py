"""Store latency: saga's embedded backend versus raw pyoxigraph, and the guard's own cost.

Generates a Wikidata-like graph of about 1M triples, loads it into an on-disk store and
measures, side by side in one run:

* a one-entity neighbourhood query as the lookup tool builds it (template path, in-process);
* a COUNT over the whole graph written by a "user" (guard path, killable worker);
* the read-only guard alone on the 50 CK25 reference queries (realistic model-written SPARQL).

Ends with ``RESULT neighbourhood_p50_ratio=… count_p50_ratio=… guard_p50_ms=…``.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox
import yaml

from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.embedded.store import EmbeddedStore, load_files
from saga_kgqa.kg.guard.query_guard import QueryGuard
from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from smoke import shrink, size

EX = "http://example.org/kg/"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
SCHEMA_DESCRIPTION = "http://schema.org/description"


def generate_graph(path: Path, entities: int, seed: int = 7) -> int:
    """Write a Wikidata-like N-Triples file with ~10 triples per entity; return the triple count."""
    rng = random.Random(seed)
    classes, properties = 200, 300
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for c in range(classes):
            parent = rng.randrange(c) if c else None
            if parent is not None:
                out.write(f"<{EX}C{c}> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <{EX}C{parent}> .\n")
                count += 1
            out.write(f'<{EX}C{c}> <{RDFS_LABEL}> "class {c}"@en .\n')
            count += 1
        for p in range(properties):
            out.write(f'<{EX}P{p}> <{RDFS_LABEL}> "property {p}"@en .\n')
            count += 1
        for e in range(entities):
            s = f"<{EX}Q{e}>"
            lines = [
                f"{s} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{EX}C{rng.randrange(classes)}> .",
                f'{s} <{RDFS_LABEL}> "entity {e}"@en .',
                f'{s} <{RDFS_LABEL}> "Entität {e}"@de .',
                f'{s} <{SCHEMA_DESCRIPTION}> "synthetic entity number {e}"@en .',
            ]
            lines += [f"{s} <{EX}P{rng.randrange(properties)}> <{EX}Q{rng.randrange(entities)}> ." for _ in range(4)]
            lines.append(
                f'{s} <{EX}P{rng.randrange(properties)}> "{rng.randrange(10**6)}"'
                "^^<http://www.w3.org/2001/XMLSchema#integer> ."
            )
            lines.append(
                f'{s} <{EX}P{rng.randrange(properties)}> "{1900 + rng.randrange(120)}-01-01"'
                "^^<http://www.w3.org/2001/XMLSchema#date> ."
            )
            out.write("\n".join(lines) + "\n")
            count += len(lines)
    return count


def neighbourhood_query(entity: str) -> str:
    """The one-entity outgoing neighbourhood with property and value labels, as lookup builds it."""
    return (
        "SELECT ?p ?o ?pLabel ?oLabel WHERE { "
        f"{iri(entity)} ?p ?o . "
        f"OPTIONAL {{ ?p <{RDFS_LABEL}> ?pLabel FILTER(LANG(?pLabel) = 'en') }} "
        f"OPTIONAL {{ ?o <{RDFS_LABEL}> ?oLabel FILTER(LANG(?oLabel) = 'en') }} "
        "} LIMIT 200"
    )


COUNT_QUERY = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


def timed(fn: Callable[[], object], repeats: int) -> list[float]:
    """Run ``fn`` ``repeats`` times and return the wall-clock seconds of each run."""
    out = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        out.append(time.perf_counter() - started)
    return out


def p(values: list[float], q: float) -> float:
    """Return the q-quantile (0..1) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def raw_rows(store: ox.Store, text: str) -> int:
    """Run a query on raw pyoxigraph and touch every value, the baseline's minimum work."""
    result = store.query(text)
    names = [v.value for v in result.variables]
    n = 0
    for solution in result:
        for name in names:
            _ = solution[name]
        n += 1
    return n


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--entities", type=int, default=100_000, help="~10 triples per entity")
    parser.add_argument("--repeats", type=int, default=300)
    parser.add_argument("--count-repeats", type=int, default=7)
    args = shrink(parser.parse_args(), entities=300, repeats=5, count_repeats=1)

    work = Path(tempfile.mkdtemp(prefix="saga-bench-"))
    try:
        nt = work / "graph.nt"
        started = time.perf_counter()
        triples = generate_graph(nt, args.entities)
        store_dir = work / "store"
        load_files(store_dir, [nt])
        print(f"graph: {triples} triples generated and loaded in {time.perf_counter() - started:.1f} s")

        raw = ox.Store.read_only(str(store_dir))
        graph = KnowledgeGraph(EmbeddedStore(store_dir))
        rng = random.Random(11)
        entities = [f"{EX}Q{rng.randrange(args.entities)}" for _ in range(args.repeats)]
        limits = ExecutionLimits(deadline_s=60, max_rows=1000)

        # Interleave raw and saga calls so both see the same machine noise.
        raw_times: list[float] = []
        saga_times: list[float] = []
        for entity in entities:
            text = neighbourhood_query(entity)
            raw_times += timed(lambda t=text: raw_rows(raw, t), 1)
            saga_times += timed(lambda t=text: graph.run(from_template(t, limit=200), limits=limits), 1)
        raw_count: list[float] = []
        saga_count: list[float] = []
        graph.query(COUNT_QUERY, limits=limits)  # start the worker outside the timings
        for _ in range(args.count_repeats):
            raw_count += timed(lambda: raw_rows(raw, COUNT_QUERY), 1)
            saga_count += timed(lambda: graph.query(COUNT_QUERY, limits=limits), 1)
        graph.close()

        guard_times: list[float] = []
        questions_file = args.data_dir / "text2sparql_ck25" / "questions.yml"
        if questions_file.is_file():
            questions = yaml.safe_load(questions_file.read_text(encoding="utf-8"))["questions"]
            guard = QueryGuard(get_profile("embedded"))
            texts = [q["query"]["sparql"] for q in questions]
            for _ in range(size(5, 1)):
                for text in texts:
                    guard_times += timed(lambda t=text: guard.check(t), 1)
        else:
            print(f"guard: {questions_file} absent, skipped")

        def row(name: str, values: list[float]) -> None:
            print(f"{name:<28} p50 {statistics.median(values) * 1000:9.3f} ms   p95 {p(values, 0.95) * 1000:9.3f} ms")

        row("neighbourhood raw", raw_times)
        row("neighbourhood saga", saga_times)
        row("count raw", raw_count)
        row("count saga (guard+worker)", saga_count)
        if guard_times:
            row("guard (CK25 queries)", guard_times)
        n_ratio = statistics.median(saga_times) / statistics.median(raw_times)
        c_ratio = statistics.median(saga_count) / statistics.median(raw_count)
        guard_p50 = statistics.median(guard_times) * 1000 if guard_times else float("nan")
        guard_p95 = p(guard_times, 0.95) * 1000 if guard_times else float("nan")
        print(
            f"RESULT neighbourhood_p50_ratio={n_ratio:.3f} count_p50_ratio={c_ratio:.3f} "
            f"guard_p50_ms={guard_p50:.3f} guard_p95_ms={guard_p95:.3f} triples={triples}"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

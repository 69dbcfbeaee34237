"""Time schema-index builds on the shared graphs (CK25 and every Spider4SPARQL graph present).

Usage: python bench/schema_build.py --data-dir ../shared/data

Ends with ``RESULT graphs=… build_s_max=… build_s_total=… load_s_total=… queries_max=…`` (the slowest build beside
the total).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.profiles import EndpointProfile
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.schema import build_schema_index
from smoke import first, shrink


def _graphs(data_dir: Path) -> list[tuple[str, list[Path]]]:
    graphs = [("ck25", [data_dir / "text2sparql_ck25" / "prod-inst.ttl"])]
    spider = data_dir / "spider4sparql"
    for kg in sorted((spider / "kg").glob("*.ttl")):
        db = kg.name.removesuffix(".ttl").removesuffix("_triples")
        owl = spider / "ontology" / f"mpboot_spider_{db}.owl"
        graphs.append((f"spider/{db}+owl", [kg, owl]))
        graphs.append((f"spider/{db} (data only)", [kg]))
    return graphs


def main() -> None:
    """Print load and build times, one line per graph."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--sample-size", type=int, default=200)
    args = shrink(parser.parse_args(), sample_size=20)
    builds: list[tuple[float, float, int]] = []  # load s, build s, queries
    print(f"{'graph':40} {'triples':>8} {'load s':>7} {'build s':>8} {'props':>6} {'formal':>6} {'induced':>7} queries")
    for name, files in first(_graphs(args.data_dir)):
        if not all(f.is_file() for f in files):
            print(f"{name:40} skipped (files absent)")
            continue
        started = time.perf_counter()
        store = EmbeddedStore.from_files(files)
        loaded = time.perf_counter()
        counting = _CountingRunner(store)
        index = build_schema_index(counting, induce=True, sample_size=args.sample_size)
        built = time.perf_counter()
        formal = sum(p.domain_source == "formal" for p in index.properties.values())
        induced = sum(p.domain_source == "induced" for p in index.properties.values())
        print(
            f"{name:40} {len(store):>8} {loaded - started:>7.2f} {built - loaded:>8.2f} "
            f"{len(index.properties):>6} {formal:>6} {induced:>7} {counting.calls}"
        )
        store.close()
        builds.append((loaded - started, built - loaded, counting.calls))
    print(
        f"RESULT graphs={len(builds)} build_s_max={max((b for _, b, _ in builds), default=0):.2f} "
        f"build_s_total={sum(b for _, b, _ in builds):.2f} load_s_total={sum(s for s, _, _ in builds):.2f} "
        f"queries_max={max((q for _, _, q in builds), default=0)} load_average={os.getloadavg()[0]:.1f}"
    )


class _CountingRunner:
    """A pass-through backend that counts the queries the builder sends."""

    def __init__(self, store: EmbeddedStore) -> None:
        self._store = store
        self.calls = 0

    @property
    def endpoint_id(self) -> str:
        return self._store.endpoint_id

    @property
    def profile(self) -> EndpointProfile:
        return self._store.profile

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        self.calls += 1
        return self._store.execute(query, limits)

    def close(self) -> None:
        self._store.close()


if __name__ == "__main__":
    main()

"""A join's cross product is bounded by construction (issue 38, point 1; docs/faults.md J1-J2)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from saga_kgqa.app.sources import open_source_toolbox
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.sources.federation import join_sources
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.tools.execute.models import ExecuteSettings
from tests.unit.multisource.conftest import L, R

ROWS = 1000


def _sources(tmp_path: Path, left: str, right: str) -> SourceSet:
    (tmp_path / "l.ttl").write_text(left)
    (tmp_path / "r.ttl").write_text(right)
    catalog = Catalog(
        sources={
            "a": SourceRecord(name="a", data=(tmp_path / "l.ttl",)),
            "b": SourceRecord(name="b", data=(tmp_path / "r.ttl",)),
        },
        default_source="a",
    )
    return SourceSet(catalog, survey_dir=tmp_path / "cache", toolboxes=open_source_toolbox)


def test_one_shared_key_of_a_thousand_rows_each_is_cut_at_the_row_cap(tmp_path: Path) -> None:
    left = "".join(f'<{L}c{n}> <{L}code> "K" .\n' for n in range(ROWS))
    right = "".join(f'<{R}d{n}> <{R}code> "K" ; <{R}name> "D{n}" .\n' for n in range(ROWS))
    request = (
        f"a: SELECT ?c ?key WHERE {{ ?c <{L}code> ?key }} ==> "
        f"b: SELECT ?key ?n WHERE {{ ?d <{R}code> ?key ; <{R}name> ?n }}"
    )
    with _sources(tmp_path, left, right) as sources:
        settings = ExecuteSettings(max_result_rows=ROWS)
        tracemalloc.start()
        joined = join_sources(sources, request, settings=settings)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert joined.status == "ok", joined.text
    assert joined.result is not None
    # The product (10^6 rows) is never built: the join stops at the row cap and says so.
    assert len(joined.result.rows) == ROWS and joined.row_count == ROWS
    assert joined.result.truncated and joined.product == ROWS * ROWS
    assert f"cut at {ROWS:,} of at least {ROWS * ROWS:,} joined rows" in joined.text
    assert peak < 60 * 2**20, f"the join peaked at {peak / 2**20:.0f} MiB"


def test_a_key_that_cannot_be_bound_is_skipped_and_the_rest_join(tmp_path: Path) -> None:
    long = "x" * 5000
    left = (
        f'<{L}c1> <{L}code> "A" .\n<{L}c2> <{L}code> "B\\u0000C" .\n<{L}c3> <{L}code> "{long}" .\n'
        f'<{L}c4> <{L}code> "D" .\n'
    )
    right = "".join(f'<{R}d{k}> <{R}code> "{k}" ; <{R}name> "N{k}" .\n' for k in ("A", "D"))
    request = (
        f"a: SELECT ?c ?key WHERE {{ ?c <{L}code> ?key }} ==> "
        f"b: SELECT ?key ?n WHERE {{ ?d <{R}code> ?key ; <{R}name> ?n }}"
    )
    with _sources(tmp_path, left, right) as sources:
        joined = join_sources(sources, request)
    assert joined.status == "ok", joined.text
    assert joined.result is not None
    assert sorted(row["n"].value for row in joined.result.rows) == ["NA", "ND"]
    assert "2 keys could not be bound" in joined.text, joined.text

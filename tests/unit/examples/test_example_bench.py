"""bench/examples.py: the tuning objective and the local-name column of its tally (issue 25)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from saga_kgqa.examples.coverage import signature
from saga_kgqa.examples.model import QueryExample

BENCH = Path(__file__).resolve().parents[3] / "bench" / "examples.py"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_examples_under_test", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up; undone after
    spec.loader.exec_module(module)
    return module


def test_the_objective_keeps_only_settings_where_the_order_holds_then_takes_the_best_mean(bench: ModuleType) -> None:
    # Two dev parts, (properties, features) each.
    figures = {
        "random": [(0.1, 0.2), (0.1, 0.2)],
        "emb a": [(0.9, 0.9), (0.8, 0.9)],  # the best mean, but below "bm25 y" on part 2's properties
        "emb b": [(0.7, 0.8), (0.7, 0.8)],
        "bm25 x": [(0.5, 0.5), (0.5, 0.5)],
        "bm25 y": [(0.6, 0.7), (0.85, 0.7)],
    }
    settings = {(s.embedding, s.bm25): s for s in bench._settings(figures)}
    assert len(settings) == 4
    assert settings[("emb a", "bm25 x")].holds and not settings[("emb a", "bm25 y")].holds
    assert settings[("emb a", "bm25 y")].margin == pytest.approx(0.8 - 0.85)
    chosen = bench.choose(list(settings.values()))
    assert (chosen.embedding, chosen.bm25) == ("emb a", "bm25 x")
    # When nothing holds, the best worst-case margin wins over the best mean.
    none_hold = bench._settings({**figures, "bm25 x": [(0.95, 0.5), (0.5, 0.5)], "bm25 y": [(0.6, 0.7), (0.89, 0.95)]})
    assert not any(s.holds for s in none_hold)
    best = bench.choose(none_hold)
    assert (best.embedding, best.bm25) == ("emb a", "bm25 x")  # worst gap -0.05 (a+y: -0.09)
    assert best.mean < max(s.mean for s in none_hold)


def test_the_tally_counts_coverage_by_iri_and_by_local_name(bench: ModuleType) -> None:
    gold = signature("SELECT ?n WHERE { ?s a <http://valuenet/ontop/singer> ; <http://valuenet/ontop/singer#age> ?n }")
    other_db = QueryExample(
        question="What is the age of each person?",
        sparql="SELECT ?a WHERE { ?p a <http://valuenet/ontop/people> ; <http://valuenet/ontop/people#age> ?a }",
        source="train:fixture",
    )
    tally = bench.Tally()
    tally.add(gold, [other_db], tokens=False)
    assert tally.properties == [0.5]  # rdf:type only
    assert tally.properties_local == [1.0]  # rdf:type and the column "age"

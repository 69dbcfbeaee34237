"""`saga wikidata build-store` on ../shared/data, then `saga lookup` on CoDEx and QALD-10 entities."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyoxigraph as ox
import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]
runner = CliRunner()
WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"


@pytest.fixture(scope="module")
def store(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wikidata") / "store"
    result = runner.invoke(app, ["wikidata", "build-store", "--data-dir", str(data_dir), "--store", str(out)])
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["by_source"]["codex-m-train"] > 180_000
    assert report["held_out"] > 0 and report["typed_entities"] > 70_000
    return out


def lookup(store: Path, data_dir: Path, entity: str) -> str:
    args = ["lookup", entity, "--data", str(store), "--dialect", "wikidata", "--data-dir", str(data_dir)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_lookup_of_a_codex_film_shows_annotated_wdt_properties(store: Path, data_dir: Path) -> None:
    text = lookup(store, data_dir, "wd:Q108946")
    assert 'Types: "film" (wd:Q11424)' in text
    assert "0 hidden), whose domains admit the types above unless stated:" in text
    director = next(line for line in text.splitlines() if line.startswith('- "director" (wdt:P57): "director of film'))
    # The director's range is the cast member's (curated), named once on the cast member's line.
    assert "— range: as for wdt:P161 — value: wd:Q287607" in director
    # Its eight curated range classes are shown by the one most properties name ("human", not "person").
    cast = '- "cast member" (wdt:P161): "actor in the subject production" — range: "human" (wd:Q5) +7 more'
    assert cast in text
    assert "rdfs:label" not in text and "p:P" not in text


def test_lookup_of_a_qald10_city_shows_qualifiers_and_the_hidden_count(store: Path, data_dir: Path) -> None:
    text = lookup(store, data_dir, "wd:Q42053")  # Isfahan, from SPINACH's recorded QALD-10 lookups
    assert 'Entity "Isfahan" (wd:Q42053): "city in Isfahan Province, Iran"' in text
    assert '"capital of" (wdt:P1376)' in text
    assert '"start time" (pq:P580)' in text
    assert "hidden" in text


def test_no_codex_test_triple_is_in_the_store(store: Path, data_dir: Path) -> None:
    held_out = []
    for split in ("codex-m", "codex-s"):
        with gzip.open(data_dir / "codex" / "triples" / split / "test.txt.gz", "rt") as handle:
            held_out.extend(tuple(line.split()) for line in handle)
    graph = ox.Store.read_only(str(store))
    found = [
        triple
        for triple in held_out
        if any(
            graph.quads_for_pattern(
                ox.NamedNode(WD + triple[0]), ox.NamedNode(WDT + triple[1]), ox.NamedNode(WD + triple[2])
            )
        )
    ]
    del graph
    assert len(held_out) > 12_000
    assert found == []

"""The composition root's source set shows the agent every survey this process holds (issue 41, divergence a).

Before: ``SharedSources`` (the set every face gets) overrode ``get()`` but not ``opened()``, so after a
face surveyed a source, the agent's source-mode prompt still said "not surveyed yet" for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import saga_kgqa
from saga_kgqa.app.sources import forget_opened, source_set
from saga_kgqa.config.catalog import Catalog
from saga_kgqa.sources.catalog_search import list_sources

SPACE = Path(saga_kgqa.__file__).resolve().parent / "example_graph" / "space_exploration.ttl"


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[Catalog]:
    path = tmp_path / "catalog.toml"
    path.write_text(f'[sources.space]\ndata = ["{SPACE}"]\n', encoding="utf-8")
    forget_opened()
    yield Catalog.load(path)
    forget_opened()


def test_a_survey_held_by_the_process_is_listed_by_every_source_set(catalog: Catalog, tmp_path: Path) -> None:
    surveyor = source_set(catalog, survey_dir=tmp_path / "surveys")
    surveyor.get("space").survey()

    agents = source_set(catalog, survey_dir=tmp_path / "surveys")
    held = agents.opened("space")
    assert held is not None and held.surveyed() is not None
    [entry] = list_sources(agents, survey_missing=False)
    assert "not surveyed" not in entry.description
    assert "Astronaut" in entry.classes


def test_opened_never_opens_a_source(catalog: Catalog, tmp_path: Path) -> None:
    sources = source_set(catalog, survey_dir=tmp_path / "surveys")
    assert sources.opened("space") is None

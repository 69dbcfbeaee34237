"""One source-set class, two opening policies: what closing a set does to the sources it got.

The composition root's set (:func:`saga_kgqa.app.sources.source_set`) borrows the process's sources:
closed with ``release=True`` it closes them (the next face opens them again), otherwise it leaves
them open for the process. A set built without an opener owns its sources and closes them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import saga_kgqa
from saga_kgqa.app.sources import forget_opened, open_source, source_set
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.sources.session import OpenSource, SourceSet

SPACE = Path(saga_kgqa.__file__).resolve().parent / "example_graph" / "space_exploration.ttl"


@pytest.fixture
def catalog() -> Iterator[Catalog]:
    forget_opened()
    yield Catalog(sources={"space": SourceRecord(name="space", data=(SPACE,))}, default_source="space")
    forget_opened()


def _counting_closes(opened: OpenSource) -> list[int]:
    closes: list[int] = []
    close = opened.graph.close

    def counted() -> None:
        closes.append(1)
        close()

    opened.graph.close = counted  # type: ignore[method-assign]
    return closes


def test_a_kept_set_leaves_the_process_source_open(catalog: Catalog, tmp_path: Path) -> None:
    with source_set(catalog, survey_dir=tmp_path) as kept:
        got = kept.get("space")
        closes = _counting_closes(got)
        assert kept.get("space") is got is open_source(catalog.source("space"), survey_dir=tmp_path)
    assert closes == []
    assert source_set(catalog, survey_dir=tmp_path).opened("space") is got


def test_a_releasing_set_closes_the_source_and_the_next_face_opens_it_again(catalog: Catalog, tmp_path: Path) -> None:
    with source_set(catalog, survey_dir=tmp_path, release=True) as released:
        got = released.get("space")
        closes = _counting_closes(got)
    assert closes == [1]
    again = source_set(catalog, survey_dir=tmp_path)
    assert again.opened("space") is None
    assert again.get("space") is not got


def test_a_set_without_an_opener_owns_its_sources(catalog: Catalog, tmp_path: Path) -> None:
    with SourceSet(catalog, survey_dir=tmp_path) as own:
        got = own.get("space")
        closes = _counting_closes(got)
        assert own.get("space") is got and own.opened("space") is got
        # Not the process's: another face neither sees nor shares it.
        assert source_set(catalog, survey_dir=tmp_path).opened("space") is None
    assert closes == [1]
    assert own.opened("space") is None

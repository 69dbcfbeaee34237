"""Served graphs get named sources only from an operator's catalog file, never from the environment's catalog."""

from __future__ import annotations

from pathlib import Path

from saga_kgqa.app.caller import CallerSourcesFactory
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.config.context import SagaContext
from tests.conftest import TEST_DATA

LAB = TEST_DATA / "autoschema" / "lab.trig"


def test_only_a_catalog_file_gives_the_agent_named_sources(tmp_path: Path) -> None:
    records = {name: SourceRecord(name=name, data=(LAB,)) for name in ("a", "b")}
    from_env = CallerSourcesFactory(Catalog(sources=records, default_source="a"))
    assert from_env(SagaContext()) is None
    filed = CallerSourcesFactory(Catalog(sources=records, default_source="a", path=tmp_path / "catalog.toml"))
    sources = filed(SagaContext())
    assert sources is not None and sources.names == ["a", "b"]
    assert filed(SagaContext()) is sources  # opened once, shared by every run

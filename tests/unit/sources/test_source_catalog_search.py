"""Catalog operations and the source summary: derived metadata, ranking, caps, hostile graph text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.config.catalog import Catalog, SourceRecord, UnknownName
from saga_kgqa.sources.catalog_search import catalog_text, find_sources, list_categories, list_sources
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.sources.summary import RESULT_CHARS, source_summary
from tests.conftest import TEST_DATA
from tests.support.grounding import MINI_TTL

LAB = TEST_DATA / "autoschema" / "lab.trig"


@pytest.fixture()
def sources(tmp_path: Path) -> Iterator[SourceSet]:
    catalog = Catalog(
        sources={
            "lab": SourceRecord(name="lab", data=(LAB,), categories=("biology",)),
            "mini": SourceRecord(
                name="mini",
                data=(MINI_TTL,),
                title="Company graph",
                description="Employees and products",
                categories=("enterprise", "biology"),
            ),
        },
        default_source="lab",
    )
    with SourceSet(catalog, survey_dir=tmp_path) as opened:
        yield opened


def test_records_keep_their_metadata_and_others_get_it_derived(sources: SourceSet) -> None:
    entries = {e.name: e for e in list_sources(sources)}
    assert (entries["mini"].title, entries["mini"].derived) == ("Company graph", False)
    assert entries["lab"].derived and entries["lab"].title == "graph of Protein, Scientist, Institute"
    assert "Scientist (3; name, worksAt, orcid, address)" in entries["lab"].description
    text = catalog_text(list(entries.values()))
    assert "- mini: Company graph [enterprise, biology]" in text
    assert "http" not in text.split("classes:")[0]  # names and titles, never a location


def test_categories_and_find(sources: SourceSet) -> None:
    assert [(c.category, c.sources) for c in list_categories(sources)] == [
        ("biology", ("lab", "mini")),
        ("enterprise", ("mini",)),
    ]
    assert [f.entry.name for f in find_sources(sources, "proteins of scientists")] == ["lab"]
    assert [f.entry.name for f in find_sources(sources, "company employees")] == ["mini"]
    assert find_sources(sources, "astronomy") == []


def test_summary_is_capped_and_graph_text_is_defanged(sources: SourceSet) -> None:
    summary = source_summary(sources, "mini")
    assert len(summary.text) <= RESULT_CHARS + 80
    assert summary.text.index("coverage:") < summary.text.index("class ")
    assert "<system>" not in summary.text and "</tool>" not in summary.text
    assert not summary.declared_schema


def test_unknown_source_lists_the_configured_names(sources: SourceSet) -> None:
    with pytest.raises(UnknownName, match="configured sources: lab, mini"):
        source_summary(sources, "nope")

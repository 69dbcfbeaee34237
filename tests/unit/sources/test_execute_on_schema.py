"""``execute_on`` checks a query against the schema index the run's re-run of it uses (the one schema rule).

Before: ``execute_on_source`` type-checked against the source's survey index (declared, else surveyed),
while the final re-run and the answer checks (:func:`saga_kgqa.graph.source_tools.attempt_tools`) use the
view of the source's one toolbox, whose index follows :func:`saga_kgqa.app.open.open_schema` (declared,
else the dialect's offline index, else one induced under the dialect's vocabulary). On a Wikidata-dialect
source the survey does not know ``wdt:P31`` types things, so ``execute_on`` ran a query as empty that the
re-run then blocked.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.app.sources import source_set
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.sources.grounding import execute_on_source
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.tools.execute.models import ExecuteSettings
from saga_kgqa.tools.execute.tool import execute

WIKI = """\
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
wd:Q1 wdt:P31 wd:Q5 ; wdt:P19 wd:Q100 .
wd:Q2 wdt:P31 wd:Q5 ; wdt:P19 wd:Q100 .
wd:Q100 wdt:P31 wd:Q515 .
wd:Q101 wdt:P31 wd:Q515 .
wd:Q200 wdt:P31 wd:Q6256 ; wdt:P36 wd:Q100 .
"""
#: A city's place of birth: wdt:P19's subjects are humans (wd:Q5), and no city has one.
CITY_BIRTHPLACE = (
    "PREFIX wd: <http://www.wikidata.org/entity/> PREFIX wdt: <http://www.wikidata.org/prop/direct/> "
    "SELECT ?x WHERE { ?x wdt:P31 wd:Q515 ; wdt:P19 ?y }"
)


@pytest.fixture
def sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SourceSet]:
    # No offline Wikidata index: the toolbox's index is induced from the graph under the dialect's vocabulary.
    monkeypatch.setenv("SAGA_DATA_DIR", str(tmp_path / "no-data"))
    data = tmp_path / "wiki.ttl"
    data.write_text(WIKI, encoding="utf-8")
    record = SourceRecord(name="wiki", data=(data,), dialect="wikidata")
    with source_set(Catalog(sources={"wiki": record}, default_source="wiki"), survey_dir=tmp_path, release=True) as s:
        yield s


def test_execute_on_checks_against_the_index_of_the_sources_toolbox(sources: SourceSet) -> None:
    opened = sources.get("wiki")
    # The two indexes disagree on this query: the survey's lets it run, the toolbox's blocks it.
    assert execute(CITY_BIRTHPLACE, graph=opened.graph, schema=opened.schema()).status == "empty"
    rerun = opened.toolbox().default_view().execute(CITY_BIRTHPLACE, theta=None, step=1, settings=ExecuteSettings())
    assert rerun.status == "blocked"

    outcome = execute_on_source(sources, "wiki", CITY_BIRTHPLACE)
    assert outcome.status == rerun.status
    assert "wd:Q5" in outcome.text, outcome.text

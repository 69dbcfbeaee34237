"""Sources fail alone (issue 26, faults L1-L2): hostile counts, one bad source among good ones, the prompt."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.errors import ConfigurationError, SourceMisbehaved
from saga_kgqa.graph.source_tools import SourceMode, source_prompt_lines
from saga_kgqa.kg.core.counts import count_of, parse_count
from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.schema import build_schema_index, survey_cache
from saga_kgqa.schema.survey import survey_source
from saga_kgqa.schema.survey_cache import cached_survey, forget_surveys
from saga_kgqa.schema.survey_model import SurveyLimits
from saga_kgqa.sources import session
from saga_kgqa.sources.catalog_search import catalog_text, list_sources
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.sources.summary import source_summary
from tests.conftest import TEST_DATA
from tests.support.grounding import MINI_TTL
from tests.support.hostile_sources import HostileCounts, SlowDrip

LAB = TEST_DATA / "autoschema" / "lab.trig"


def test_a_hostile_count_is_a_recorded_sanitised_failure_not_a_crash() -> None:
    backend = HostileCounts(open_backend(data=[LAB]), honest=1)
    with KnowledgeGraph(backend) as graph:
        survey = survey_source(graph, source="lab")
    misbehaved = [f for f in survey.failures if "source misbehaved" in f.error]
    assert misbehaved, survey.failures
    text = " ".join(survey.coverage())
    assert "</tool>" not in text and "<<SYS>>" not in text and "\u202e" not in text
    assert survey.partial


@pytest.fixture()
def mixed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SourceSet]:
    """A catalog of a healthy source and one whose counts turn hostile (neither has a description)."""
    forget_surveys()
    real = session.open_source_graph

    def opening(record: SourceRecord) -> KnowledgeGraph:
        graph = real(record)
        if record.name == "bad":
            graph.close()
            return KnowledgeGraph(HostileCounts(open_backend(data=list(record.data)), endpoint_id="remote:bad"))
        return graph

    monkeypatch.setattr(session, "open_source_graph", opening)
    catalog = Catalog(
        sources={
            "bad": SourceRecord(name="bad", data=(LAB,)),
            "good": SourceRecord(name="good", data=(MINI_TTL,)),
        },
        default_source="good",
    )
    with SourceSet(catalog, survey_dir=tmp_path) as sources:
        yield sources
    forget_surveys()


def test_one_hostile_source_does_not_break_the_listing_or_the_others(mixed: SourceSet) -> None:
    entries = {e.name: e for e in list_sources(mixed)}
    assert set(entries) == {"bad", "good"}
    text = catalog_text(list(entries.values()))
    assert "</tool>" not in text and "<<SYS>>" not in text
    assert source_summary(mixed, "good").classes
    bad = source_summary(mixed, "bad")
    assert "</tool>" not in bad.text and "<<SYS>>" not in bad.text
    assert any("source misbehaved" in line for line in bad.coverage)
    assert entries["bad"].description.endswith("(partial survey)") or "incomplete" in entries["bad"].description


def test_the_prompt_lists_sources_without_surveying_them(mixed: SourceSet) -> None:
    text = source_prompt_lines(SourceMode(mixed), steps_left=10)
    assert "- bad:" in text and "- good:" in text
    assert mixed.opened("bad") is None and mixed.opened("good") is None


def test_a_slow_drip_survey_stops_at_its_overall_deadline_and_says_so() -> None:
    limits = SurveyLimits(total_s=0.6)
    backend = SlowDrip(open_backend(data=[LAB]), delay_s=0.1)
    started = time.monotonic()
    with KnowledgeGraph(backend) as graph:
        survey = survey_source(graph, source="lab", limits=limits)
    assert time.monotonic() - started < 0.6 + 4 * 0.1 + 2.0  # the deadline, plus probes already in flight
    assert survey.partial
    assert any("survey deadline of 0.6 s passed" in f.error for f in survey.failures)
    assert any("partial survey" in line for line in survey.coverage())


def test_a_partial_survey_is_cached_briefly_then_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    forget_surveys()
    clock = [time.time()]
    monkeypatch.setattr(survey_cache, "_now", lambda: clock[0])
    backend = HostileCounts(open_backend(data=[LAB]), honest=1)
    with KnowledgeGraph(backend) as graph:
        first = cached_survey(graph, source="lab", cache_dir=tmp_path)
        assert first.partial
        sent = backend.sent
        assert cached_survey(graph, source="lab", cache_dir=tmp_path) is first  # within its short lifetime
        assert backend.sent == sent
        backend.honest = 10_000  # the endpoint recovers
        clock[0] += survey_cache.PARTIAL_TTL_S + 1
        forget_surveys()  # from disk too, not only memory
        second = cached_survey(graph, source="lab", cache_dir=tmp_path)
    assert backend.sent > sent
    assert not second.partial
    forget_surveys()


def test_the_survey_budget_is_configurable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = Catalog(sources={"lab": SourceRecord(name="lab", data=(LAB,))}, default_source="lab")
    monkeypatch.setenv("SAGA_SURVEY_SECONDS", "42")
    assert SourceSet(catalog, survey_dir=tmp_path).limits.total_s == 42
    monkeypatch.setenv("SAGA_SURVEY_SECONDS", "soon")
    with pytest.raises(ConfigurationError, match="SAGA_SURVEY_SECONDS"):
        SourceSet(catalog, survey_dir=tmp_path)
    monkeypatch.delenv("SAGA_SURVEY_SECONDS")
    assert SourceSet(catalog, survey_dir=tmp_path).limits.total_s == 300


def test_the_overall_budget_is_not_part_of_the_cache_key() -> None:
    assert survey_cache.survey_key("s", "e", (), SurveyLimits(total_s=5)) == survey_cache.survey_key(
        "s", "e", (), SurveyLimits()
    )
    assert survey_cache.survey_key("s", "e", (), SurveyLimits(max_classes=3)) != survey_cache.survey_key(
        "s", "e", (), SurveyLimits()
    )


def test_counts_read_elsewhere_are_typed_errors_not_value_errors() -> None:
    # The schema index build (saga index build --endpoint), lookup's hiding and dialect reads parsed with int().
    with pytest.raises(SourceMisbehaved, match="not a number"):
        build_schema_index(HostileCounts(open_backend(data=[LAB])))
    assert parse_count(Term("literal", "12")) == 12 and parse_count(Term("literal", "7.0")) == 7
    assert parse_count(Term("literal", "1" * 40)) is None and parse_count(Term("uri", "12")) is None
    assert count_of(None) == 0

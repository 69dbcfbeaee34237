"""The bounded live survey: evidence, limits, failed probes, named graphs and the cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.errors import QueryTimeout
from saga_kgqa.kg.core.backend import ExecutionLimits, KGBackend
from saga_kgqa.kg.core.profiles import EndpointProfile
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.schema.survey import survey_source
from saga_kgqa.schema.survey_cache import cached_survey, forget_surveys
from saga_kgqa.schema.survey_model import SurveyLimits
from tests.conftest import TEST_DATA

LAB = TEST_DATA / "autoschema" / "lab.trig"
L = "http://example.org/lab/"


class CountingBackend:
    """Counts queries and fails those containing ``fail_on`` with a timeout."""

    def __init__(self, inner: KGBackend, fail_on: str | None = None) -> None:
        self.inner = inner
        self.fail_on = fail_on
        self.sent: list[str] = []

    @property
    def endpoint_id(self) -> str:
        return self.inner.endpoint_id

    @property
    def profile(self) -> EndpointProfile:
        return self.inner.profile

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        self.sent.append(query.text)
        if self.fail_on is not None and self.fail_on in query.text:
            raise QueryTimeout("probe timed out")
        return self.inner.execute(query, limits)

    def close(self) -> None:
        self.inner.close()


@pytest.fixture()
def lab() -> Iterator[CountingBackend]:
    backend = CountingBackend(open_backend(data=[LAB]))
    try:
        yield backend
    finally:
        backend.close()


def test_survey_finds_domains_ranges_kinds_and_examples(lab: CountingBackend) -> None:
    survey = survey_source(KnowledgeGraph(lab), source="lab")
    index = survey.index
    assert [c.iri for c in survey.classes] == [L + "Protein", L + "Scientist", L + "Institute", L + "Gene"]
    assert index.properties[L + "worksAt"].domain == {L + "Scientist"}
    assert index.properties[L + "worksAt"].range == {L + "Institute"}
    assert index.properties[L + "worksAt"].domain_source == "surveyed"
    assert index.properties[L + "studiedBy"].range == {L + "Scientist"}
    assert index.properties[L + "mass"].datatype == "http://www.w3.org/2001/XMLSchema#decimal"
    scientist = next(c for c in survey.classes if c.iri == L + "Scientist")
    kinds = {p.iri: {k.kind: k.count for k in p.object_kinds} for p in scientist.properties}
    assert kinds[L + "name"] == {"lang": 3}
    assert kinds[L + "address"] == {"bnode": 1}
    orcid = next(p for p in scientist.properties if p.iri == L + "orcid")
    assert set(orcid.examples) == {'"0000-0001-2345-6789"', '"0000-0002-9999-0000"'}
    assert scientist.graphs == ("urn:lab:people",)
    assert survey.named_graphs == ("urn:lab:people", "urn:lab:proteins")
    assert all(c.example_query is not None and c.example_query.ran and c.example_query.rows for c in survey.classes)
    # An untyped blank-node object gives no range: most sampled objects must be typed.
    assert index.properties[L + "address"].range == frozenset()


def test_request_count_is_bounded_by_the_limits(lab: CountingBackend) -> None:
    limits = SurveyLimits(max_classes=2, max_properties=2)
    survey = survey_source(KnowledgeGraph(lab), source="lab", limits=limits)
    assert len(survey.classes) == 2
    assert all(len(c.properties) <= 2 for c in survey.classes)
    assert survey.requests == len(lab.sent) <= limits.max_requests()
    coverage = " ".join(survey.coverage())
    assert "2 less used classes were not surveyed" in coverage
    assert "may still exist" in coverage


def test_a_failed_probe_is_skipped_and_recorded(tmp_path: Path) -> None:
    backend = CountingBackend(open_backend(data=[LAB]), fail_on="COUNT(DISTINCT ?o)")
    with KnowledgeGraph(backend) as graph:
        survey = survey_source(graph, source="lab")
    assert len(survey.classes) == 4
    failed = {f.what for f in survey.failures}
    assert f"object kinds and types of {L}Scientist's properties" in failed
    # Domains still come from the probes that worked; ranges are left unknown.
    assert survey.index.properties[L + "worksAt"].domain == {L + "Scientist"}
    assert survey.index.properties[L + "worksAt"].range == frozenset()
    assert any("not covered: object kinds" in line for line in survey.index.notes)


def test_named_graph_scope(lab: CountingBackend) -> None:
    survey = survey_source(KnowledgeGraph(lab), source="lab", graphs=["urn:lab:proteins"])
    assert {c.iri for c in survey.classes} == {L + "Protein", L + "Gene"}
    assert all("{ <urn:lab:proteins> }" in text for text in lab.sent)
    assert all(c.example_query is not None and c.example_query.rows for c in survey.classes)


def test_cache_in_memory_then_on_disk_then_refresh(lab: CountingBackend, tmp_path: Path) -> None:
    forget_surveys()
    graph = KnowledgeGraph(lab)
    first = cached_survey(graph, source="lab", cache_dir=tmp_path)
    sent = len(lab.sent)
    assert cached_survey(graph, source="lab", cache_dir=tmp_path) == first
    assert len(lab.sent) == sent
    forget_surveys()
    from_disk = cached_survey(graph, source="lab", cache_dir=tmp_path)
    assert len(lab.sent) == sent
    assert from_disk.built_at == first.built_at
    assert from_disk.index == first.index
    other_graphs = cached_survey(graph, source="lab", graphs=["urn:lab:people"], cache_dir=tmp_path)
    assert len(lab.sent) > sent
    assert {c.iri for c in other_graphs.classes} == {L + "Scientist", L + "Institute"}
    sent = len(lab.sent)
    cached_survey(graph, source="lab", cache_dir=tmp_path, refresh=True)
    assert len(lab.sent) > sent
    forget_surveys()


def test_one_pass_over_the_type_triples_ranks_and_counts_the_classes(lab: CountingBackend) -> None:
    # The ranking's rows are every class when there are fewer than CLASSES_COUNTED: no second whole-graph pass.
    survey = survey_source(KnowledgeGraph(lab), source="lab", limits=SurveyLimits(max_classes=2))
    assert survey.class_count == 4
    assert [c.iri for c in survey.classes] == [L + "Protein", L + "Scientist"]
    assert not [q for q in lab.sent if "(COUNT(?c) AS ?n)" in q]
    # Classes are never filtered per type triple (4.1 s against 0.23 s at 10M triples): the vocabulary's
    # classes are told apart from the grouped rows (issue 42: an ontology's terms are ranked with them).
    ranking = next(q for q in lab.sent if "ORDER BY DESC(?n) ?c" in q)
    assert "STRSTARTS" not in ranking


def test_past_the_ranked_rows_the_classes_are_counted_apart(
    lab: CountingBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    import saga_kgqa.schema.survey as survey_module

    monkeypatch.setattr(survey_module, "CLASSES_COUNTED", 3)  # the lab graph has 4 classes: more than the rows
    survey = survey_source(KnowledgeGraph(lab), source="lab", limits=SurveyLimits(max_classes=2))
    assert survey.class_count == 4
    assert [q for q in lab.sent if "(COUNT(?c) AS ?n)" in q]

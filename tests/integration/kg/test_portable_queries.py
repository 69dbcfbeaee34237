"""A query written for WDQS, run elsewhere: rewritten before the guard (each rewrite said), or refused by name.

The embedded store and Virtuoso run here for real; QLever and WDQS answer through recorded
replies (the record/replay cache), so what each receives is checked without a network.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.cache.replay_cache import CacheMode, RecordReplayBackend
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.profiles import EndpointProfile, get_profile
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.core.result import QueryResult, Term
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.kg.remote.endpoint import RemoteEndpoint
from tests.support.virtuoso_server import VirtuosoServer

DATA = Path(__file__).resolve().parents[2] / "data" / "label_service.ttl"
# As on WDQS: no PREFIX line, a query hint, an IRI comparison, the label service.
WDQS_QUERY = """SELECT DISTINCT ?item ?itemLabel WHERE {
  hint:Query hint:optimizer "None" .
  ?item wdt:P31 wd:Q146 .
  ?other wdt:P31 wd:Q146 .
  FILTER(?item < ?other)
  SERVICE wikibase:label { bd:serviceParam wikibase:language "[AUTO_LANGUAGE],fr". }
} ORDER BY ?item"""
# What WDQS answers: the cats that sort before another one, English label, else French.
EXPECTED = [{"item": "Q1", "itemLabel": "cat"}, {"item": "Q2", "itemLabel": "chat"}]


def _rows(result: QueryResult) -> list[dict[str, str]]:
    return [{k: v.value.removeprefix("http://www.wikidata.org/entity/") for k, v in r.items()} for r in result.rows]


class _Counting:
    """A backend that counts what reaches it (to show a refusal sends nothing)."""

    def __init__(self, inner: EmbeddedStore) -> None:
        self.inner, self.sent = inner, 0

    @property
    def endpoint_id(self) -> str:
        return self.inner.endpoint_id

    @property
    def profile(self) -> EndpointProfile:
        return self.inner.profile

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        self.sent += 1
        return self.inner.execute(query, limits)

    def close(self) -> None:
        self.inner.close()


@pytest.fixture(scope="module")
def embedded() -> Iterator[tuple[KnowledgeGraph, _Counting]]:
    backend = _Counting(EmbeddedStore.from_files([DATA], profile=get_profile("embedded")))
    with KnowledgeGraph(backend) as graph:
        yield graph, backend


def test_a_wdqs_query_runs_on_the_embedded_wikidata_subset_with_its_rewrites_said(
    embedded: tuple[KnowledgeGraph, _Counting],
) -> None:
    graph, _ = embedded
    checked = graph.check(WDQS_QUERY)
    assert checked.source_text == WDQS_QUERY
    said = " | ".join(checked.rewrites)
    assert "declared WDQS's predeclared prefix(es)" in said and "wikibase:" in said and "bd:" in said
    assert "query hint" in said and "?item < ?other" in said and "SERVICE wikibase:label" in said
    assert "hint:" not in checked.text and "SERVICE" not in checked.text.replace("serviceParam", "")
    result = graph.query(WDQS_QUERY)
    assert _rows(result) == EXPECTED
    assert sum("rewritten for this embedded store" in note for note in result.notes) == len(checked.rewrites)


def test_without_the_comparison_rewrite_the_engine_drops_every_row(embedded: tuple[KnowledgeGraph, _Counting]) -> None:
    # Why the rewrite exists: oxigraph's `<` on two IRIs is a type error, so the FILTER drops each row.
    graph, _ = embedded
    plain = "PREFIX wd: <http://www.wikidata.org/entity/> PREFIX wdt: <http://www.wikidata.org/prop/direct/>\n"
    raw = graph.guard.check(
        plain + "SELECT ?item WHERE { ?item wdt:P31 wd:Q146 . ?o wdt:P31 wd:Q146 FILTER(?item < ?o) }"
    )
    assert graph.run(raw).rows == []


def test_text_search_becomes_a_filter_when_its_variable_is_bound(embedded: tuple[KnowledgeGraph, _Counting]) -> None:
    graph, _ = embedded
    text = 'SELECT ?item WHERE { ?item rdfs:label ?name . ?name bds:search "CAT" . }'
    checked = graph.check(text)
    assert any("bds:search on ?name" in line for line in checked.rewrites)
    assert _rows(graph.query(text)) == [{"item": "Q1"}]


@pytest.mark.parametrize(
    ("text", "construct"),
    [
        (
            'SELECT ?item WHERE { SERVICE wikibase:mwapi { bd:serviceParam wikibase:api "EntitySearch" . } }',
            "wikibase:mwapi",
        ),
        ('SELECT ?name WHERE { ?name bds:search "cat" . }', "bds:search on ?name"),
        (
            'SELECT ?t WHERE { ?t <http://qlever.cs.uni-freiburg.de/builtin-functions/contains-word> "cat" }',
            "ql:contains-word",
        ),
        ("SELECT ?item WHERE { ?item wdt:P31 wd:Q146 ; hint:Prior hint:runLast true }", "query hint"),
    ],
)
def test_a_construct_the_store_cannot_run_is_refused_before_it_runs(
    embedded: tuple[KnowledgeGraph, _Counting], text: str, construct: str
) -> None:
    graph, backend = embedded
    before = backend.sent
    with pytest.raises(QueryRejected) as caught:
        graph.query(text)
    assert caught.value.reason == "not_portable"
    assert construct in caught.value.message and "cannot run on this embedded store" in caught.value.message
    assert backend.sent == before  # nothing reached the store


def test_the_same_query_on_virtuoso_with_its_rewrites_said(virtuoso: VirtuosoServer) -> None:
    virtuoso.load(DATA, "http://saga.test/labels")
    graph = KnowledgeGraph(
        open_backend(endpoint=virtuoso.url, profile="virtuoso", default_graphs=["http://saga.test/labels"])
    )
    try:
        checked = graph.check(WDQS_QUERY)
        said = " | ".join(checked.rewrites)
        # Virtuoso's profile knows none of WDQS's prefixes: every one used is declared.
        assert "wd:, wdt:" in said or ("wd:" in said and "wdt:" in said)
        assert "SERVICE wikibase:label" in said
        assert "?item < ?other" not in said  # Virtuoso orders IRIs itself: the comparison is left as written
        assert _rows(graph.query(WDQS_QUERY)) == EXPECTED
    finally:
        graph.close()


class _Recorder:
    """Stands where the remote server stood when its replies were recorded."""

    def __init__(self, endpoint_id: str, profile: EndpointProfile, answer: QueryResult) -> None:
        self.endpoint_id, self.profile, self.answer = endpoint_id, profile, answer
        self.received: list[str] = []

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        self.received.append(query.text)
        assert isinstance(self.answer, QueryResult)
        return self.answer

    def close(self) -> None:
        pass


def _record_then_replay(profile: str, answer: QueryResult, tmp_path: Path) -> tuple[KnowledgeGraph, _Recorder]:
    url = f"http://127.0.0.1:9/{profile}"  # nothing listens there: replay must not need it
    endpoint = RemoteEndpoint(url, profile=get_profile(profile))
    recorder = _Recorder(endpoint.endpoint_id, endpoint.profile, answer)
    with KnowledgeGraph(RecordReplayBackend(recorder, cache_dir=tmp_path, mode=CacheMode.RECORD)) as recording:  # type: ignore[arg-type]
        recording.query(WDQS_QUERY)
    return KnowledgeGraph(RecordReplayBackend(endpoint, cache_dir=tmp_path, mode=CacheMode.REPLAY)), recorder


#: The reply WDQS or QLever gave when it was recorded (hand-written: no network here).
REPLY = QueryResult(
    form="SELECT",
    variables=["item", "itemLabel"],
    rows=[
        {"item": Term("uri", "http://www.wikidata.org/entity/Q1"), "itemLabel": Term("literal", "cat", lang="en")},
        {"item": Term("uri", "http://www.wikidata.org/entity/Q2"), "itemLabel": Term("literal", "chat", lang="fr")},
    ],
)


def test_qlever_through_a_recorded_reply_gets_the_label_service_rewritten(tmp_path: Path) -> None:
    replayed, recorder = _record_then_replay("qlever", REPLY, tmp_path)
    with replayed:
        checked = replayed.check(WDQS_QUERY)
        # QLever predeclares WDQS's prefixes and orders IRIs: only the hint and the label service change.
        assert [line.split(" ")[0] for line in checked.rewrites] == ["removed", "SERVICE"]
        sent = recorder.received[0]
        assert "SERVICE" not in sent.replace("serviceParam", "") and "FILTER(?item < ?other)" in sent
        # The replay answers only the exact text recorded: the rewritten query, unchanged since.
        assert _rows(replayed.query(WDQS_QUERY)) == EXPECTED


def test_wdqs_through_a_recorded_reply_receives_the_query_as_written(tmp_path: Path) -> None:
    replayed, recorder = _record_then_replay("wikidata", REPLY, tmp_path)
    with replayed:
        assert replayed.check(WDQS_QUERY).rewrites == ()
        assert "SERVICE wikibase:label" in recorder.received[0] and "hint:Query" in recorder.received[0]
        assert _rows(replayed.query(WDQS_QUERY)) == EXPECTED

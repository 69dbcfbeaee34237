"""The per-request deadline holds for survey probes on the embedded store (issue 27, fault W1).

Survey probes are template queries, which the embedded store ran in-process, where pyoxigraph
cannot be stopped: a probe whose cost grows with the graph ran past its 20 s deadline for as
long as it took. Unbounded templates (``bounded=False``) now run in the store's killable,
memory-capped worker, so a runaway probe is stopped at its deadline and the survey says partial.
Timing is asserted only as "it came back within a generous bound", never as a speed target.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from saga_kgqa.errors import QueryTimeout
from saga_kgqa.kg.core.backend import ExecutionLimits, KGBackend
from saga_kgqa.kg.core.query import CheckedQuery, from_template
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.kg.embedded.loading import load_files
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.schema import survey as survey_module
from saga_kgqa.schema.survey_model import SourceSurvey, SurveyLimits
from saga_kgqa.schema.survey_prober import Prober
from tests.unit.schema.test_survey import LAB, CountingBackend

_EX = "http://example.org/w1/"
#: Three-way cross product of ~1,600 triples: billions of rows, hours of work for the engine.
_CROSS = "?a ?b ?c . ?d ?e ?f . ?g ?h ?i"
_RUNAWAY = f"SELECT (COUNT(*) AS ?n) WHERE {{ {_CROSS} }}"
#: Generous: a stopped probe returns in about its deadline plus a worker start.
_BOUND_S = 60.0


@pytest.fixture(scope="module")
def small_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("w1")
    data = root / "small.nt"
    lines = []
    for n in range(400):
        lines.append(f"<{_EX}e{n}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{_EX}C{n % 4}> .")
        lines.append(f'<{_EX}e{n}> <http://www.w3.org/2000/01/rdf-schema#label> "entity {n}" .')
        lines.append(f"<{_EX}e{n}> <{_EX}link> <{_EX}e{(n * 7) % 400}> .")
        lines.append(f'<{_EX}e{n}> <{_EX}value> "{n}"^^<http://www.w3.org/2001/XMLSchema#integer> .')
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    load_files(root / "store", [data])
    yield root / "store"


def _within(bound_s: float, call: Callable[[], object]) -> object:
    """Run ``call`` in a daemon thread; fail (instead of hanging the suite) when it outlives ``bound_s``."""
    outcome: list[object] = []

    def target() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # handed to the test thread
            outcome.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(bound_s)
    assert not thread.is_alive(), f"still running after {bound_s:g} s: the deadline did not hold"
    return outcome[0]


def test_an_unbounded_template_is_stopped_at_its_deadline(small_store: Path) -> None:
    with EmbeddedStore(small_store) as store:
        query = from_template(_RUNAWAY, "SELECT", limit=1, bounded=False)
        outcome = _within(_BOUND_S, lambda: store.execute(query, ExecutionLimits(deadline_s=0.5)))
        assert isinstance(outcome, QueryTimeout), outcome
        # The store still answers afterwards (a fresh worker).
        again = store.execute(from_template(f"SELECT ?s WHERE {{ ?s a <{_EX}C1> }} LIMIT 5", limit=5, bounded=False))
        assert len(again.rows) == 5


def test_bounded_templates_keep_the_in_process_fast_path(small_store: Path) -> None:
    with EmbeddedStore(small_store) as store:
        result = store.execute(from_template(f"SELECT ?o WHERE {{ <{_EX}e3> ?p ?o }}", limit=10))
        assert len(result.rows) == 4
        assert store.worker_starts == 0  # no worker process for the lookup tools' anchored queries


def test_a_runaway_survey_probe_is_stopped_and_the_survey_says_partial(
    small_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = survey_module._named_graphs

    def runaway_then_real(prober: Prober) -> tuple[str, ...]:
        # A probe whose cost grows with the graph, sent the way every survey probe is.
        assert prober.select("SELECT (COUNT(*) AS ?n)", _CROSS, limit=1, what="runaway count") is None
        return real(prober)

    monkeypatch.setattr(survey_module, "_named_graphs", runaway_then_real)
    limits = SurveyLimits(deadline_s=0.5)
    with KnowledgeGraph(EmbeddedStore(small_store)) as graph:
        outcome = _within(_BOUND_S, lambda: survey_module.survey_source(graph, source="w1", limits=limits))
    assert isinstance(outcome, SourceSurvey), outcome
    assert outcome.partial
    assert any(f.what == "runaway count" and "deadline" in f.error for f in outcome.failures), outcome.failures
    # The other probes ran: the survey is partial, not empty.
    assert {c.iri for c in outcome.classes} == {f"{_EX}C{n}" for n in range(4)}


class _InFlight(CountingBackend):
    """Records the most probes in flight at once; each takes a little while, so overlaps show."""

    def __init__(self, inner: KGBackend) -> None:
        super().__init__(inner)
        self._lock = threading.Lock()
        self._now = 0
        self.most = 0

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        with self._lock:
            self._now += 1
            self.most = max(self.most, self._now)
        try:
            time.sleep(0.02)
            return super().execute(query, limits)
        finally:
            with self._lock:
                self._now -= 1


def test_survey_probes_on_the_embedded_store_are_sent_one_at_a_time() -> None:
    # The store's one worker answers them one at a time: probes sent together would only queue
    # behind each other, each spending its deadline waiting (a probe that waited 20 s never ran).
    backend = _InFlight(open_backend(data=[LAB]))
    with KnowledgeGraph(backend) as graph:
        survey = survey_module.survey_source(graph, source="lab", limits=SurveyLimits(max_concurrency=4))
    assert survey.classes and not survey.partial
    assert backend.most == 1

"""The per-endpoint gate: shared per URL, breaker windows on the clock, pauses and anchoring."""

from __future__ import annotations

import pytest

from saga_kgqa.errors import EndpointBanned, EndpointThrottled, EndpointUnavailable
from saga_kgqa.kg.core.clock import Deadline
from saga_kgqa.kg.guard.query_shape import is_anchored
from saga_kgqa.kg.remote.endpoint_gate import EndpointGate, forget_gate, gate_for
from tests.support.fake_clock import FakeClock

WD = {"wd": "http://www.wikidata.org/entity/", "wdt": "http://www.wikidata.org/prop/direct/"}


def test_gates_are_shared_per_url_and_take_the_strictest_bound() -> None:
    clock = FakeClock()
    url = "http://gate.test/sparql"
    forget_gate(url)
    first = gate_for(url, max_concurrency=4, clock=clock)
    second = gate_for(url, max_concurrency=1, clock=clock)
    assert first is second and first.max_concurrency == 1
    assert gate_for("http://other.test/sparql", max_concurrency=4, clock=clock) is not first
    forget_gate(url)
    forget_gate("http://other.test/sparql")


def test_breaker_opens_for_its_window_then_closes() -> None:
    clock = FakeClock()
    gate = EndpointGate("http://e/sparql", max_concurrency=1, clock=clock)
    gate.open_breaker("connection refused", for_s=60)
    with pytest.raises(EndpointUnavailable, match="connection refused"):
        gate.check_breaker()
    clock.advance(59)
    with pytest.raises(EndpointUnavailable):
        gate.check_breaker()
    clock.advance(2)
    gate.check_breaker()


def test_a_ban_is_not_cleared_by_a_success_nor_downgraded_by_another_failure() -> None:
    clock = FakeClock()
    gate = EndpointGate("http://e/sparql", max_concurrency=1, clock=clock)
    gate.open_breaker("banned", for_s=600, banned=True)
    gate.close_breaker()
    gate.open_breaker("connection refused", for_s=6000)
    with pytest.raises(EndpointBanned):
        gate.check_breaker()


def test_a_full_gate_gives_up_at_the_deadline() -> None:
    clock = FakeClock()
    gate = EndpointGate("http://e/sparql", max_concurrency=1, clock=clock)
    with (
        gate.slot(Deadline(clock, 5)),
        pytest.raises(EndpointThrottled, match="no free request slot"),
        gate.slot(Deadline(clock, 0.05)),
    ):
        pass


def test_a_pause_left_behind_is_waited_out_or_fails_fast() -> None:
    clock = FakeClock()
    gate = EndpointGate("http://e/sparql", max_concurrency=2, clock=clock)
    gate.leave_pause(30)
    with gate.slot(Deadline(clock, 10)) as slot, pytest.raises(EndpointThrottled) as caught:
        slot.before_send(Deadline(clock, 10))
    assert caught.value.retry_after_s == pytest.approx(30, abs=0.5)
    assert clock.sleeps == []
    with gate.slot(Deadline(clock, 60)) as slot:
        slot.before_send(Deadline(clock, 60))
    assert clock.sleeps == [pytest.approx(30, abs=0.5)]


@pytest.mark.parametrize(
    ("text", "anchored"),
    [
        ("SELECT ?o WHERE { wd:Q42 wdt:P31 ?o }", True),
        ("SELECT ?s WHERE { ?s wdt:P31 wd:Q5 }", True),
        ("SELECT ?s WHERE { ?s wdt:P31/wdt:P279* wd:Q5 }", True),
        ("SELECT ?s WHERE { ?s wdt:P31 ?o }", False),
        ("SELECT ?s WHERE { ?s ?p 'Douglas Adams'@en }", False),
        (
            "SELECT ?s WHERE { ?s wdt:P31 ?o SERVICE <http://wikiba.se/ontology#label> { <http://x> <http://y> ?o } }",
            False,
        ),
        ("SELECT ?s WHERE { ?s ?p ?o", False),
    ],
)
def test_anchored_means_a_constant_iri_as_subject_or_object(text: str, anchored: bool) -> None:
    assert is_anchored(text, WD) is anchored

"""The gold-replay answerer records the outcome of what it ran, as the agent answerer does (issue 41 point 2).

``saga eval run --answerer gold-replay`` wrote ``"outcome": null`` on every record and reported
``outcomes: {"unrecorded": 3}``: a replay ran each gold query but never said how it ended. The outcome
now follows the rules ``finalize`` applies to a final query (:func:`saga_kgqa.state.outcome.derive_outcome`).
"""

from __future__ import annotations

import pytest

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.errors import BackendError, QueryRejected, QueryTimeout, SagaError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.result import QueryResult, Term
from saga_kgqa.runs.batch import GoldReplayAnswerer
from saga_kgqa.runs.predictions import PredictionStatus, outcome_counts

ROW = {"x": Term("uri", "http://example.org/a")}


class Replies:
    """A gold runner that answers (or fails) each query text as told."""

    endpoint_id = "test"

    def __init__(self, replies: dict[str, QueryResult | SagaError]) -> None:
        self.replies = replies

    def query(self, text: str | bytes, limits: ExecutionLimits | None = None) -> QueryResult:
        reply = self.replies[str(text)]
        if isinstance(reply, SagaError):
            raise reply
        return reply


def _question(gold: str | None) -> BenchmarkQuestion:
    return BenchmarkQuestion(id=f"t:{gold}", benchmark="t", question="q?", gold_sparql=gold)


CASES: dict[str, tuple[QueryResult | SagaError, str]] = {
    "rows": (QueryResult(form="SELECT", variables=["x"], rows=[ROW]), "answered"),
    "nothing": (QueryResult(form="SELECT", variables=["x"]), "empty"),
    "ask-false": (QueryResult(form="ASK", boolean=False), "answered"),
    "cut": (QueryResult(form="SELECT", variables=["x"], rows=[ROW], truncated=True), "partial"),
    "incomplete": (QueryResult(form="SELECT", variables=["x"], rows=[ROW], complete=False), "partial"),
    "slow": (QueryTimeout("past its deadline"), "timed_out"),
    "update": (QueryRejected("read-only", reason="update"), "refused"),
    "broken": (QueryRejected("syntax error", reason="syntax"), "failed"),
    "down": (BackendError("endpoint down"), "failed"),
}


@pytest.mark.parametrize("gold", sorted(CASES))
def test_each_replayed_query_records_its_outcome(gold: str) -> None:
    reply, expected = CASES[gold]
    record = GoldReplayAnswerer(Replies({gold: reply}))(_question(gold))
    assert record.outcome == expected, record


def test_a_question_without_gold_records_no_query_and_a_corrupted_answer_is_empty() -> None:
    replay = GoldReplayAnswerer(Replies({"rows": CASES["rows"][0]}), corrupt_every=2)
    records = [replay(_question(None)), replay(_question("rows")), replay(_question("rows"))]
    assert [r.status for r in records] == [PredictionStatus.NO_QUERY, *[PredictionStatus.ANSWERED] * 2]
    # No query ran (as an agent that stops without one: refused, no_query); the second call is emptied.
    assert [r.outcome for r in records] == ["refused", "empty", "answered"]
    assert outcome_counts(records) == {"answered": 1, "empty": 1, "refused": 1}

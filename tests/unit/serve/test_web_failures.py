"""A failed page run is explained in words a page user can act on, never as an exception dump or CLI advice."""

from __future__ import annotations

import pytest

from saga_kgqa.errors import BackendError, ConfigurationError, SagaError
from saga_kgqa.serve.web.failures import explain


class APIConnectionError(Exception):
    """Named as the OpenAI client's: the page matches by name, without importing the client."""


class RateLimitError(Exception):
    """Named as the OpenAI client's."""


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (APIConnectionError("Connection refused: http://10.0.0.5:8000/v1"), "could not be reached"),
        (RateLimitError("429"), "Wait a minute"),
        (BackendError("the endpoint answered 503"), "knowledge graph could not be queried"),
        (ConfigurationError("the source 'x' is not in the catalog"), "configuration stopped this run"),
        (SagaError("the step budget is spent"), "Press Resume"),
        (KeyError("pending_action"), "unexpected error"),
    ],
)
def test_each_failure_says_what_to_do(error: Exception, words: str) -> None:
    text = explain(error)
    assert words in text
    assert "Traceback" not in text and "--" not in text  # no dump, no command-line flags
    assert "10.0.0.5" not in text  # the model client's own message (the operator's URL) stays in the log

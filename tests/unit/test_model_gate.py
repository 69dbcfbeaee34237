from __future__ import annotations

import threading

import pytest
from langchain_core.messages import HumanMessage

from saga_kgqa.config.model_settings import ModelSettings
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.model_gate import model_slots
from saga_kgqa.models import PromptRole, chat_model_for
from tests.support.openai_mock import MockReply, serve_openai_mock


def _ask_in_parallel(settings: ModelSettings, callers: int) -> None:
    model = chat_model_for(PromptRole.ANSWER_TYPE, settings)
    errors: list[BaseException] = []

    def call() -> None:
        try:
            model.invoke([HumanMessage("hello")])
        except BaseException as exc:  # collected and re-raised in the test thread
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors


@pytest.mark.parametrize("cap", [1, 2])
def test_requests_in_flight_to_one_model_never_exceed_the_cap(cap: int) -> None:
    replies = [MockReply(content="ok", delay_s=0.2) for _ in range(6)]
    with serve_openai_mock(replies) as mock:
        settings = ModelSettings(model=f"capped-{cap}", base_url=mock.base_url, api_key="x", max_concurrency=cap)
        _ask_in_parallel(settings, 6)
    assert len(mock.requests) == 6
    assert mock.max_in_flight == cap


def test_without_a_cap_requests_overlap() -> None:
    """Control: the mock does see parallel requests when nothing caps them."""
    replies = [MockReply(content="ok", delay_s=0.3) for _ in range(4)]
    with serve_openai_mock(replies) as mock:
        _ask_in_parallel(ModelSettings(model="uncapped", base_url=mock.base_url, api_key="x"), 4)
    assert mock.max_in_flight > 1


def test_cap_comes_from_the_environment_and_explicit_wins() -> None:
    env = {"SAGA_MODEL_CONCURRENCY": "3"}
    assert ModelSettings.resolve(environ=env).max_concurrency == 3
    assert ModelSettings.resolve(max_concurrency=1, environ=env).max_concurrency == 1
    with pytest.raises(ConfigurationError, match="SAGA_MODEL_CONCURRENCY"):
        ModelSettings.resolve(environ={"SAGA_MODEL_CONCURRENCY": "many"})
    with pytest.raises(ConfigurationError, match="at least 1"):
        ModelSettings.resolve(environ={"SAGA_MODEL_CONCURRENCY": "0"})


def test_the_stricter_of_two_limits_for_one_model_wins() -> None:
    loose = model_slots("http://server-a", "m", 4)
    strict = model_slots("http://server-a", "m", 2)
    assert model_slots("http://server-a", "m", 3) is strict is not loose
    assert model_slots("http://server-b", "m", 4) is not strict
    with pytest.raises(ValueError, match="at least 1"):
        model_slots("http://server-a", "m", 0)

"""Model configuration: precedence, the missing-model error, Appendix F decoding, what goes over the wire."""

from __future__ import annotations

from dataclasses import dataclass

import openai
import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from saga_kgqa.config.model_settings import ModelNotConfigured, ModelSettings
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.models import (
    ROLE_DECODING,
    ConfiguredModelFactory,
    PromptRole,
    chat_model_for,
    load_factory,
    prompt_role,
    with_structured_output,
)
from tests.support.openai_mock import MockReply, MockToolCall, serve_openai_mock


def test_explicit_beats_saga_env_beats_openai_env() -> None:
    env = {"SAGA_MODEL": "saga-model", "OPENAI_MODEL": "openai-model", "OPENAI_BASE_URL": "http://o/v1"}
    assert ModelSettings.resolve(model="explicit", environ=env).model == "explicit"
    from_env = ModelSettings.resolve(environ=env)
    assert from_env.model == "saga-model"
    assert from_env.base_url == "http://o/v1"
    assert ModelSettings.resolve(environ={"OPENAI_MODEL": "m"}).model == "m"
    assert ModelSettings.resolve(environ={}).model is None


def test_blank_environment_values_count_as_unset() -> None:
    assert ModelSettings.resolve(environ={"SAGA_MODEL": "  ", "OPENAI_MODEL": "m"}).model == "m"


def test_nothing_configured_says_exactly_what_to_set() -> None:
    with pytest.raises(ModelNotConfigured) as caught:
        chat_model_for(PromptRole.CONTROLLER, ModelSettings.resolve(environ={}))
    message = caught.value.message
    for setting in ("SAGA_BASE_URL", "SAGA_MODEL", "OPENAI_API_KEY", "--base-url", "--model"):
        assert setting in message
    assert isinstance(caught.value, ConfigurationError)


def test_base_url_without_model_names_the_missing_model() -> None:
    with pytest.raises(ModelNotConfigured, match="SAGA_MODEL"):
        ModelSettings(base_url="http://localhost:8000/v1").require_complete()


def test_openai_without_key_is_refused_but_a_local_server_needs_none() -> None:
    with pytest.raises(ModelNotConfigured, match="OPENAI_API_KEY"):
        ModelSettings(model="gpt-4o-mini").require_complete()
    ModelSettings(model="llama3.1", base_url="http://localhost:11434/v1").require_complete()


def test_description_never_shows_the_key() -> None:
    settings = ModelSettings(model="m", base_url="http://h/v1", api_key="sk-secret")
    assert "sk-secret" not in settings.describe()
    assert settings.describe() == "m at http://h/v1"


def test_appendix_f_decoding_per_role() -> None:
    assert ROLE_DECODING[PromptRole.ANSWER_TYPE].temperature == 0.0
    assert ROLE_DECODING[PromptRole.ANSWER_TYPE].max_tokens == 100
    controller = ROLE_DECODING[PromptRole.CONTROLLER_TEXT]
    assert (controller.temperature, controller.top_p, controller.max_tokens) == (1.0, 0.9, 700)
    assert controller.stop == ("\nObservation",)
    assert ROLE_DECODING[PromptRole.CONTROLLER].stop == ()
    assert ROLE_DECODING[PromptRole.ACTION_PARSER].temperature == 0.0


def test_request_to_a_compatible_server_carries_role_decoding_and_both_token_caps() -> None:
    with serve_openai_mock([MockReply(content="Thought: look\nAction: stop()")]) as mock:
        settings = ModelSettings(model="openai/gpt-oss-120b", base_url=mock.base_url)
        reply = chat_model_for(PromptRole.CONTROLLER_TEXT, settings).invoke([HumanMessage("q")])
    assert reply.content == "Thought: look\nAction: stop()"
    (body,) = mock.requests
    assert body["model"] == "openai/gpt-oss-120b"
    assert body["temperature"] == 1.0
    assert body["top_p"] == 0.9
    assert body["stop"] == ["\nObservation"]
    assert body["max_completion_tokens"] == 700
    assert body["max_tokens"] == 700


def test_openai_itself_gets_only_max_completion_tokens() -> None:
    settings = ModelSettings(model="gpt-4o-mini", api_key="sk-x")
    model = chat_model_for(PromptRole.ANSWER_TYPE, settings)
    assert getattr(model, "extra_body", None) is None
    assert getattr(model, "max_tokens", None) == 100


def test_reasoning_content_is_kept() -> None:
    with serve_openai_mock([MockReply(content="ok", reasoning="because")]) as mock:
        settings = ModelSettings(model="gpt-oss", base_url=mock.base_url)
        reply = chat_model_for(PromptRole.ANSWER_TYPE, settings).invoke([HumanMessage("q")])
    assert reply.additional_kwargs["reasoning_content"] == "because"


class AnswerType(BaseModel):
    answer_type_label: str
    answer_type_qid: str


def test_structured_output_uses_function_calling() -> None:
    call = MockToolCall("AnswerType", {"answer_type_label": "person", "answer_type_qid": "Q5"})
    with serve_openai_mock([MockReply(tool_calls=(call,))]) as mock:
        model = chat_model_for(PromptRole.ANSWER_TYPE, ModelSettings(model="m", base_url=mock.base_url))
        parsed = with_structured_output(model, AnswerType).invoke([HumanMessage("Who?")])
    assert parsed == AnswerType(answer_type_label="person", answer_type_qid="Q5")
    (body,) = mock.requests
    assert "response_format" not in body
    assert body["tool_choice"]["function"]["name"] == "AnswerType"


@tool
def search(text: str) -> str:
    """Search the graph."""
    return text


def test_tool_calls_round_trip_through_the_mock() -> None:
    with serve_openai_mock([MockReply(tool_calls=(MockToolCall("search", {"text": "Apollo"}),))]) as mock:
        model = chat_model_for(PromptRole.CONTROLLER, ModelSettings(model="m", base_url=mock.base_url))
        reply = model.bind_tools([search]).invoke([HumanMessage("q")])
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("search", {"text": "Apollo"})]
    assert mock.requests[0]["tools"][0]["function"]["name"] == "search"


def test_client_does_not_retry_by_itself() -> None:
    with serve_openai_mock([MockReply(status=503), MockReply(content="late")]) as mock:
        model = chat_model_for(PromptRole.ANSWER_TYPE, ModelSettings(model="m", base_url=mock.base_url))
        with pytest.raises(openai.InternalServerError):
            model.invoke([HumanMessage("q")])
    assert len(mock.requests) == 1


def test_factory_spec_is_validated() -> None:
    with pytest.raises(ConfigurationError, match=r"package\.module:callable"):
        load_factory("no_colon")
    with pytest.raises(ConfigurationError, match="cannot be imported"):
        load_factory("no_such_module_xyz:f")
    with pytest.raises(ConfigurationError, match="nothing callable"):
        load_factory("saga_kgqa.models:NOT_THERE")


@dataclass(frozen=True)
class FakeContext:
    model: str = ""
    base_url: str | None = None
    tool_calling: str = "native"


def test_factory_precedence_is_explicit_then_context_then_environment() -> None:
    env = {"SAGA_MODEL": "env-model", "SAGA_BASE_URL": "http://env/v1"}
    from_env = ConfiguredModelFactory(environ=env)
    assert from_env.settings_for(FakeContext()).model == "env-model"
    assert from_env.settings_for(FakeContext(model="ctx-model")).model == "ctx-model"
    assert from_env.settings_for(None).base_url == "http://env/v1"
    explicit = ConfiguredModelFactory(ModelSettings(model="cli-model", base_url="http://cli/v1"), environ=env)
    settings = explicit.settings_for(FakeContext(model="ctx-model", base_url="http://ctx/v1"))
    assert (settings.model, settings.base_url) == ("cli-model", "http://cli/v1")


def test_factory_builds_role_models_once_and_text_controllers_stop_at_the_observation() -> None:
    factory = ConfiguredModelFactory(environ={"SAGA_BASE_URL": "http://localhost:9/v1", "SAGA_MODEL": "m"})
    native = factory(FakeContext(), "controller")
    assert factory(FakeContext(), "controller") is native
    text = factory(FakeContext(tool_calling="text"), "controller")
    assert getattr(native, "stop", None) is None
    assert getattr(text, "stop", None) == ["\nObservation"]
    assert getattr(factory(FakeContext(), "answer_type"), "max_tokens", None) == 100


def test_factory_without_any_model_raises_the_typed_error() -> None:
    with pytest.raises(ModelNotConfigured, match="SAGA_BASE_URL"):
        ConfiguredModelFactory(environ={})(FakeContext(), "controller")


def test_unknown_role_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="unknown model role"):
        prompt_role("planner")
    assert prompt_role("parse") is PromptRole.ACTION_PARSER


def canned_factory(context: object, role: str) -> BaseChatModel:
    return FakeListChatModel(responses=[f"canned {role}"])


def test_custom_factory_from_the_environment_replaces_chat_openai() -> None:
    factory = ConfiguredModelFactory(environ={"SAGA_MODEL_FACTORY": f"{__name__}:canned_factory"})
    model = factory(FakeContext(), "prune")
    assert model.invoke("x").content == "canned prune"


def test_reasoning_effort_from_the_environment_goes_over_the_wire() -> None:
    with serve_openai_mock([MockReply(content="ok")]) as mock:
        factory = ConfiguredModelFactory(
            environ={"SAGA_BASE_URL": mock.base_url, "SAGA_MODEL": "gpt-oss", "SAGA_REASONING_EFFORT": "low"}
        )
        factory(FakeContext(), "answer_type").invoke([HumanMessage("q")])
    assert mock.requests[0]["reasoning_effort"] == "low"

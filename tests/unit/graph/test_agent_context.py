"""SagaContext: explicit value > environment > default, and every value checked."""

from __future__ import annotations

import dataclasses

import pytest

from saga_kgqa.config.context import SagaContext, resolve_context
from saga_kgqa.errors import ConfigurationError


def test_defaults_follow_the_paper() -> None:
    context = SagaContext()
    assert (context.type_filter, context.persistent_type_state, context.answer_type_prior) == (True, True, True)
    assert context.prune_fallback and context.schema_coverage == 1.0
    assert (context.history_window, context.type_context_entries, context.knowledge_log_entries) == (5, 5, 6)
    assert context.tool_calling == "native" and context.dialect == "generic"


def test_environment_beats_default() -> None:
    env = {"SAGA_MAX_STEPS": "7", "SAGA_TYPE_FILTER": "off", "SAGA_DIALECT": "wikidata", "SAGA_SCHEMA_COVERAGE": "0.5"}
    context = SagaContext.from_env(env)
    assert (context.max_steps, context.type_filter, context.dialect, context.schema_coverage) == (
        7,
        False,
        "wikidata",
        0.5,
    )


def test_explicit_beats_environment_even_when_it_equals_the_default() -> None:
    env = {"SAGA_MAX_STEPS": "7", "SAGA_TYPE_FILTER": "false"}
    context = SagaContext.from_env(env, max_steps=20, type_filter=True)
    assert context.max_steps == 20 and context.type_filter is True


def test_the_plain_constructor_ignores_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAGA_MAX_STEPS", "3")
    assert SagaContext().max_steps == 20
    assert SagaContext.from_env().max_steps == 3


def test_resolve_context_handles_none_mappings_and_instances(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAGA_MAX_ROWS_SHOWN", "9")
    given = SagaContext(max_steps=4)
    assert resolve_context(given) is given
    assert resolve_context(None).max_rows_shown == 9
    from_mapping = resolve_context({"max_steps": 2})
    assert (from_mapping.max_steps, from_mapping.max_rows_shown) == (2, 9)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SAGA_MAX_STEPS": "many"}, "SAGA_MAX_STEPS='many' is not a int"),
        ({"SAGA_TYPE_FILTER": "perhaps"}, "is not a boolean"),
        ({"SAGA_DIALECT": "dbpedia"}, "dialect must be one of generic, wikidata, freebase"),
        ({"SAGA_SCHEMA_COVERAGE": "1.5"}, "schema_coverage must be within [0, 1]"),
        ({"SAGA_MAX_STEPS": "0"}, "max_steps must be at least 1"),
    ],
)
def test_bad_environment_values_are_configuration_errors(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        SagaContext.from_env(env)
    assert message in caught.value.message


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_steps": True}, "max_steps must be a int"),
        ({"type_filter": 1}, "type_filter must be a bool"),
        ({"tool_calling": "json"}, "tool_calling must be one of native, text"),
        ({"history_window": -1}, "history_window must not be negative"),
    ],
)
def test_bad_explicit_values_are_configuration_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        SagaContext(**kwargs)  # type: ignore[arg-type]
    assert message in caught.value.message


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="unknown context field"):
        SagaContext.from_env({}, endpoint_url="http://x")


def test_every_field_is_described_for_studio() -> None:
    for item in dataclasses.fields(SagaContext):
        assert item.metadata.get("description"), item.name

"""One spelling of the dialect names (``context.DialectName``), and every place that lists dialects agrees with it."""

from __future__ import annotations

import typing

import pytest

from saga_kgqa.config.catalog import SourceRecord
from saga_kgqa.config.context import DIALECT_ALIASES, DIALECT_NAMES, DialectName, SagaContext
from saga_kgqa.dialects import DIALECTS, get_dialect
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.prompts import dialect_wording
from saga_kgqa.schema import INDEXED_DIALECTS


def test_the_registry_holds_a_dialect_for_each_name_and_no_other() -> None:
    assert DIALECT_NAMES == ("generic", "wikidata", "freebase")
    assert tuple(DIALECTS) == DIALECT_NAMES
    assert all(get_dialect(alias).name == name for alias, name in DIALECT_ALIASES.items())


def test_the_context_and_the_catalog_take_the_same_names() -> None:
    hints = typing.get_type_hints(SagaContext)
    assert hints["dialect"] == DialectName
    assert SourceRecord.model_fields["dialect"].annotation == DialectName


@pytest.mark.parametrize("name", DIALECT_NAMES)
def test_each_dialect_has_its_prompt_wording(name: str) -> None:
    assert dialect_wording(name)


def test_an_unknown_dialect_is_refused_with_the_names() -> None:
    with pytest.raises(ConfigurationError, match="generic, wikidata, freebase"):
        dialect_wording("yago")
    assert set(INDEXED_DIALECTS) < set(DIALECT_NAMES)

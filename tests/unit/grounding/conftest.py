"""The grounding tools' tests share one graph: the mini graph of tests/support/grounding.py.

The recording reader sits below the toolkit, so a test can see every query a tool sent. A
module that needs another graph or toolkit defines its own fixture of the same name.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.schema import SchemaIndex, build_schema_index
from saga_kgqa.tools.toolbox import ToolView
from tests.support.grounding import MINI_PREFIXES, MINI_TTL, RecordingReader, tool_view


@pytest.fixture(scope="module")
def store() -> Iterator[EmbeddedStore]:
    with EmbeddedStore.from_files([MINI_TTL]) as opened:
        yield opened


@pytest.fixture(scope="module")
def schema(store: EmbeddedStore) -> SchemaIndex:
    return build_schema_index(store)


@pytest.fixture
def reader(store: EmbeddedStore) -> RecordingReader:
    return RecordingReader(store)


@pytest.fixture
def kit(reader: RecordingReader, schema: SchemaIndex) -> ToolView:
    return tool_view(reader, schema, prefixes=MINI_PREFIXES)

"""The execute tool's tests share one graph: tests/data/execute/company.ttl behind a counting backend.

The counting backend sits below the guard and the facade, so it sees every query text that
is sent: a blocked query can be asserted never to reach the store. A module that needs
another graph defines its own ``store``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex, build_schema_index
from tests.support.execute_backends import CountingBackend

COMPANY_TTL = Path(__file__).resolve().parents[2] / "data" / "execute" / "company.ttl"


@pytest.fixture(scope="module")
def store() -> Iterator[EmbeddedStore]:
    with EmbeddedStore.from_files([COMPANY_TTL]) as opened:
        yield opened


@pytest.fixture(scope="module")
def schema(store: EmbeddedStore) -> SchemaIndex:
    return build_schema_index(store)


@pytest.fixture
def backend(store: EmbeddedStore) -> CountingBackend:
    return CountingBackend(store)


@pytest.fixture
def graph(backend: CountingBackend) -> KnowledgeGraph:
    return KnowledgeGraph(backend)

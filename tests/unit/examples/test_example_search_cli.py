"""`saga index example-search` shows what the agent's prompt would get: the configured runtime's ranking."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app
from saga_kgqa.config.context import SagaContext
from saga_kgqa.examples.model import QueryExample, write_examples
from saga_kgqa.examples.serving import worked_examples

QUESTIONS = (
    ("How many employees work in the research department?", "SELECT (COUNT(?e) AS ?n) WHERE { ?e ?p ?d }"),
    ("Which products does the supplier Acme deliver?", "SELECT ?p WHERE { ?p ?s ?o }"),
    ("Who manages the sales department?", "SELECT ?m WHERE { ?m ?manages ?d }"),
    ("What is the cheapest encoder?", "SELECT ?e WHERE { ?e ?price ?x } ORDER BY ?x LIMIT 1"),
    ("Is Karen Brant a member of the research department?", "ASK { ?k ?member ?d }"),
)


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    path = tmp_path / "examples.jsonl"
    write_examples([QueryExample(question=q, sparql=s, source="runs") for q, s in QUESTIONS], path)
    return path


def _search(examples: Path, *extra: str) -> tuple[int, str]:
    question = "How many people work in the sales department?"
    result = CliRunner().invoke(app, ["index", "example-search", question, "--examples", str(examples), *extra])
    return result.exit_code, result.stdout if result.exit_code == 0 else result.output


def test_the_default_is_the_agents_own_index_and_says_which_ranking_it_used(
    examples: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A runtime the operator named but cannot be reached here: the agent falls back to BM25, and so does the search
    # (it used to embed with MiniLM whatever was configured).
    monkeypatch.setenv("SAGA_EXAMPLES_EMBEDDING_RUNTIME", "openai")
    monkeypatch.delenv("SAGA_EMBEDDING_BASE_URL", raising=False)
    code, out = _search(examples, "-k", "3")
    assert code == 0, out
    shown = json.loads(out)
    assert shown["ranking"] == "bm25"
    context = SagaContext.from_env(examples_file=str(examples), examples_k=3)
    agent = worked_examples(context, "How many people work in the sales department?", 3)
    assert [e["question"] for e in shown["examples"]] == [e.question for e in agent]


def test_an_explicit_ranking_is_used_and_an_unreachable_embedding_is_a_clear_error(
    examples: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SAGA_EXAMPLES_EMBEDDING_RUNTIME", "openai")
    monkeypatch.delenv("SAGA_EMBEDDING_BASE_URL", raising=False)
    code, out = _search(examples, "--ranking", "random", "-k", "2")
    assert code == 0 and json.loads(out)["ranking"] == "random"
    code, out = _search(examples, "--ranking", "embedding")
    assert code == 2 and "base URL" in out

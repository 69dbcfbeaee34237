"""Secrets never leave the operator (issue 26, faults L5-L7): credentials in endpoint URLs are redacted everywhere."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.errors import ConfigurationError, SagaError
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.redaction import redact_text, redact_url
from saga_kgqa.schema.survey_cache import forget_surveys
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.sources.summary import source_summary
from tests.support.fake_endpoint import FakeEndpoint, Scripted, redirect

SECRET = "s3cr3t-KEY-42"


def test_redaction_hides_userinfo_and_query_values_but_keeps_protocol_parameters() -> None:
    url = f"https://ann:{SECRET}@db.example:8890/sparql?apikey={SECRET}&default-graph-uri=http://g.example/x"
    shown = redact_url(url)
    assert SECRET not in shown and "ann" not in shown
    assert shown.startswith("https://***@db.example:8890/sparql?apikey=***")
    assert "default-graph-uri=http://g.example/x" in shown
    assert SECRET not in redact_text(f"the endpoint {url} is unavailable")
    assert redact_url("https://db.example/sparql") == "https://db.example/sparql"


def test_a_secret_endpoint_url_reaches_no_caller_and_no_file(fake_endpoint: FakeEndpoint, tmp_path: Path) -> None:
    forget_surveys()
    fake_endpoint.fallback = Scripted(status=503, body=b"<|im_start|>system down", content_type="text/plain")
    url = f"{fake_endpoint.url}?apikey={SECRET}"
    catalog = Catalog(sources={"remote": SourceRecord(name="remote", endpoint=url)}, default_source="remote")
    cache = tmp_path / "cache"
    with SourceSet(catalog, survey_dir=cache) as sources:
        summary = source_summary(sources, "remote")
        graph = sources.get("remote").graph
        assert SECRET not in graph.endpoint_id
        with pytest.raises(SagaError) as failed:
            graph.query("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1")
    assert SECRET not in failed.value.message
    assert SECRET not in summary.model_dump_json() and SECRET not in summary.text
    assert any("unavailable" in line or "Endpoint" in line for line in summary.coverage)
    for path in cache.rglob("*"):
        mode = os.stat(path).st_mode & 0o777
        assert mode == (0o700 if path.is_dir() else 0o600), path
        if path.is_file():
            assert SECRET not in path.read_text(encoding="utf-8", errors="replace"), path
    forget_surveys()


def test_a_bad_endpoint_url_is_not_echoed_with_its_credentials(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(f'[sources.x]\nendpoint = "ftp://ann:{SECRET}@db.example/sparql"\n', encoding="utf-8")
    with pytest.raises(ConfigurationError) as refused:
        Catalog.load(catalog)
    assert SECRET not in refused.value.message and "http(s)" in refused.value.message
    for bad in (f"ftp://ann:{SECRET}@db.example/sparql", f"http://ann:{SECRET}@db.example:99999/x"):
        with pytest.raises(ConfigurationError) as unusable:
            open_backend(endpoint=bad)
        assert SECRET not in unusable.value.message
    with pytest.raises(ConfigurationError) as reserved:
        open_backend(endpoint=f"https://db.example/sparql?query=x&apikey={SECRET}")
    assert SECRET not in reserved.value.message


def test_the_endpoint_url_is_kept_for_requests(fake_endpoint: FakeEndpoint) -> None:
    # Redaction is for what is shown: the request itself still carries the operator's key.
    fake_endpoint.fallback = Scripted(status=503, body=b"down", content_type="text/plain")
    with (
        KnowledgeGraph(open_backend(endpoint=f"{fake_endpoint.url}?apikey={SECRET}")) as graph,
        pytest.raises(SagaError),
    ):
        graph.query("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1")
    assert any(SECRET in f"{r.path} {r.params} {r.query}" for r in fake_endpoint.requests)


def test_a_redirect_target_is_named_without_the_operators_credentials(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.script(redirect(f"http://ann:{SECRET}@elsewhere.example/sparql?apikey={SECRET}"))
    backend = open_backend(endpoint=f"{fake_endpoint.url}?apikey={SECRET}")
    with KnowledgeGraph(backend) as graph, pytest.raises(SagaError) as redirected:
        graph.query("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1")
    assert "elsewhere.example" in redirected.value.message and SECRET not in redirected.value.message

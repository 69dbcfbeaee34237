"""The run manifest: model settings from the run's context, hashes, and no secret."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest

from saga_kgqa.config.context import SagaContext
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.eval.qa.manifest import (
    build_manifest,
    dataset_hashes,
    finish_manifest,
    manifest_path,
    prompt_hashes,
    read_manifest,
    write_manifest,
)


def test_agent_runs_record_the_model_and_its_settings(tmp_path: Path) -> None:
    context = SagaContext(model="qwen3-8b", base_url="http://127.0.0.1:8000/v1", max_steps=7)
    config = {"benchmark": "qald10", "context": dataclasses.asdict(context), "method": "saga", "max_seconds": 60.0}
    (tmp_path / "qald10").mkdir()
    (tmp_path / "qald10" / "qald_10.json").write_text("[]", encoding="utf-8")
    manifest = build_manifest(config, benchmark="qald10", data_dir=tmp_path)
    assert manifest["model"]["name"] == "qwen3-8b" and manifest["model"]["settings"]["max_steps"] == 7
    assert manifest["model"]["max_seconds"] == 60.0 and "model" not in manifest["model"]["settings"]
    assert manifest["dataset"]["files"] == {"qald10/qald_10.json": hashlib.sha256(b"[]").hexdigest()}
    assert manifest["configuration"] == config
    assert "key" not in json.dumps(manifest["model"]).lower()


def test_a_benchmark_directory_counts_every_file_and_prompts_are_hashed(tmp_path: Path) -> None:
    (tmp_path / "text2sparql_ck25" / "sub").mkdir(parents=True)
    (tmp_path / "text2sparql_ck25" / "questions.yml").write_text("a", encoding="utf-8")
    (tmp_path / "text2sparql_ck25" / "sub" / "x.ttl").write_text("b", encoding="utf-8")
    assert set(dataset_hashes("ck25", tmp_path)) == {"text2sparql_ck25/questions.yml", "text2sparql_ck25/sub/x.ttl"}
    prompts = prompt_hashes()
    assert "controller.md" in prompts and all(len(h) == 64 for h in prompts.values())


def test_finished_manifest_round_trips_and_others_are_refused(tmp_path: Path) -> None:
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("{}\n", encoding="utf-8")
    manifest = finish_manifest(build_manifest({}, benchmark="none", data_dir=tmp_path), predictions, 1)
    write_manifest(manifest_path(predictions), manifest)
    assert read_manifest(manifest_path(predictions))["predictions"]["records"] == 1
    (tmp_path / "other.json").write_text('{"a": 1}', encoding="utf-8")
    with pytest.raises(ConfigurationError):
        read_manifest(tmp_path / "other.json")


def test_urls_in_the_manifest_are_redacted(tmp_path: Path) -> None:
    context = SagaContext(model="m", base_url="https://user:secret@models.example/v1?api_key=k")
    config = {"context": dataclasses.asdict(context), "endpoint": "https://u:p@sparql.example/q?token=t"}
    manifest = build_manifest(config, benchmark="none", data_dir=tmp_path)
    text = json.dumps(manifest)
    assert "secret" not in text and "api_key=k" not in text and "u:p@" not in text and "token=t" not in text
    assert (
        "models.example" in manifest["model"]["base_url"] and "sparql.example" in manifest["configuration"]["endpoint"]
    )

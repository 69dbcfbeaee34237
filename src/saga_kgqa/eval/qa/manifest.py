"""A run's manifest: what produced a predictions file, so someone else can check it.

``saga eval run`` writes ``<predictions>.manifest.json`` beside its predictions: the
benchmark's dataset files with their SHA-256, the graph files given with ``--data``, the
gold store's hash and where and when its answers came from, the chat model and its
settings (never a key: the run's context holds names and switches only, and URLs are
written with their user information and query values redacted), the hash of every
prompt file the package ships, the versions of Python and of the packages a figure depends
on, and the run's configuration (the same object saved in ``<predictions>.config.json``).
When the run ends the manifest is written again with the predictions file's hash and its
record count, so a kit (:mod:`saga_kgqa.eval.qa.kit`) can tell a file changed after the run.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from saga_kgqa.benchmarks.datasets import CK25_DIR, SPIDER_DIR
from saga_kgqa.benchmarks.loaders.text2sparql import DB25_DIR
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.redaction import redact_url

#: Manifest layout version (bump when a key changes meaning).
MANIFEST_VERSION = 1
#: Distributions whose versions can move a figure.
PACKAGES = (
    "saga-kgqa",
    "langgraph",
    "langchain-core",
    "langchain-openai",
    "pyoxigraph",
    "rdflib",
    "numpy",
    "scipy",
    "pydantic",
    "tantivy",
    "sentence-transformers",
)
#: Where each named benchmark's files live under the data directory (a directory counts every file in it).
BENCHMARK_SOURCES: dict[str, tuple[str, ...]] = {
    "qald7-test": ("qald7_wikidata/qald-7-test-en-wikidata.json",),
    "qald7-train": ("qald7_wikidata/qald-7-train-en-wikidata.json",),
    "qald10": ("qald10/qald_10.json",),
    "qald9plus-test": ("qald9plus_wikidata/spinach_qald_9_plus_en_test.json",),
    "qald9plus-train": ("qald9plus_wikidata/spinach_qald_9_plus_en_train.json",),
    "wwq-dev": ("wikiwebquestions/dev.json",),
    "wwq-train": ("wikiwebquestions/train.json",),
    "wwq-test": ("wikiwebquestions/spinach_wwq_test.json",),
    "spinach-dev": ("spinach/dev.json",),
    "spinach-test": ("spinach/test.json",),
    "cwq-test": ("tog_freebase/cwq_test.json.gz",),
    "grailqa-sample": ("tog_freebase/grailqa_sample1000.json.gz",),
    "webquestions-test": ("tog_freebase/webquestions_test.json.gz",),
    "ck25": (CK25_DIR,),
    "db25": (DB25_DIR,),
    "spider4sparql-dev": (SPIDER_DIR,),
}
_CHUNK = 1 << 20


def manifest_path(predictions: Path) -> Path:
    """Where a run's manifest is written: beside the predictions."""
    return predictions.with_name(predictions.name + ".manifest.json")


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes, read in chunks.

    Raises:
        ConfigurationError: The file cannot be read.
    """
    digest = hashlib.sha256()
    try:
        with path.open("rb") as stream:
            while chunk := stream.read(_CHUNK):
                digest.update(chunk)
    except OSError as exc:
        raise ConfigurationError(f"cannot hash {path}: {exc}") from exc
    return digest.hexdigest()


def _files_under(root: Path, relative: str) -> Iterable[tuple[str, Path]]:
    path = root / relative
    if path.is_dir():
        for child in sorted(p for p in path.rglob("*") if p.is_file()):
            yield child.relative_to(root).as_posix(), child
    elif path.is_file():
        yield relative, path


def dataset_hashes(benchmark: str, data_dir: Path) -> dict[str, str]:
    """Relative path -> SHA-256 of every file the benchmark is read from (unknown name: none)."""
    return {
        name: file_sha256(path)
        for relative in BENCHMARK_SOURCES.get(benchmark, ())
        for name, path in _files_under(data_dir, relative)
    }


def prompt_hashes() -> dict[str, str]:
    """Prompt file (package-relative) -> SHA-256 of its text, for every prompt the package ships."""
    hashes: dict[str, str] = {}
    stack = [(resources.files("saga_kgqa.prompts"), "")]
    while stack:
        folder, prefix = stack.pop()
        for entry in folder.iterdir():
            name = f"{prefix}{entry.name}"
            if entry.is_dir() and entry.name != "__pycache__":
                stack.append((entry, f"{name}/"))
            elif entry.is_file() and not entry.name.endswith((".py", ".pyc")):
                hashes[name] = hashlib.sha256(entry.read_bytes()).hexdigest()
    return dict(sorted(hashes.items()))


def package_versions() -> dict[str, str | None]:
    """Python and each of :data:`PACKAGES` (``None``: not installed)."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def gold_provenance(gold: Path | None) -> dict[str, Any] | None:
    """The gold store's hash, and where (dataset or endpoint) and when its answers were made."""
    if gold is None:
        return None
    from saga_kgqa.eval.qa.gold import GoldStore

    store = GoldStore.load(gold)
    times = sorted(r.computed_at for r in store if r.computed_at is not None)
    return {
        "file": gold.name,
        "sha256": file_sha256(gold),
        "questions": len(store),
        "status": store.status_counts(),
        "sources": dict(sorted(Counter(r.source for r in store).items())),
        "endpoints": sorted({r.endpoint_id for r in store if r.endpoint_id}),
        "computed_from": times[0].isoformat() if times else None,
        "computed_to": times[-1].isoformat() if times else None,
    }


def model_settings(config: Mapping[str, Any]) -> dict[str, Any] | None:
    """The chat model's name, server and settings from a run's configuration (``None``: no model ran)."""
    context = config.get("context")
    if not isinstance(context, Mapping):
        return None
    return {
        "name": context.get("model") or None,
        "base_url": context.get("base_url"),
        "method": config.get("method"),
        "max_seconds": config.get("max_seconds"),
        "max_tokens": config.get("max_tokens"),
        "settings": {k: v for k, v in context.items() if k not in ("model", "base_url")},
    }


def _shareable(value: Any, key: str = "") -> Any:
    """``value`` with every URL under a ``*url``/``endpoint`` key redacted (a kit is meant to travel)."""
    if isinstance(value, Mapping):
        return {k: _shareable(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_shareable(v, key) for v in value]
    if isinstance(value, str) and key.lower().endswith(("url", "endpoint")):
        return redact_url(value)
    return value


def build_manifest(
    config: Mapping[str, Any],
    *,
    benchmark: str,
    data_dir: Path,
    data_files: Iterable[Path] = (),
    gold: Path | None = None,
    clock: datetime | None = None,
) -> dict[str, Any]:
    """The manifest of a run about to start (see the module docstring)."""
    return {
        "manifest_version": MANIFEST_VERSION,
        "created_at": (clock or datetime.now(UTC)).isoformat(),
        "benchmark": benchmark,
        "dataset": {"files": dataset_hashes(benchmark, data_dir)},
        "graph_files": {path.name: file_sha256(path) for path in data_files},
        "gold": gold_provenance(gold),
        "model": _shareable(model_settings(config)),
        "prompts": prompt_hashes(),
        "packages": package_versions(),
        "configuration": _shareable(config),
    }


def finish_manifest(manifest: Mapping[str, Any], predictions: Path, records: int) -> dict[str, Any]:
    """The manifest with the finished predictions file's hash and record count."""
    return {
        **manifest,
        "finished_at": datetime.now(UTC).isoformat(),
        "predictions": {"file": predictions.name, "sha256": file_sha256(predictions), "records": records},
    }


def write_manifest(path: Path, manifest: Mapping[str, Any]) -> None:
    """Write a manifest atomically (a reader never sees half of it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n")
    os.replace(temporary, path)


def read_manifest(path: Path) -> dict[str, Any]:
    """Read a manifest.

    Raises:
        ConfigurationError: Unreadable, or not a manifest.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f"cannot read manifest {path}: {exc}") from exc
    if not isinstance(data, dict) or data.get("manifest_version") != MANIFEST_VERSION:
        raise ConfigurationError(f"{path} is not a version-{MANIFEST_VERSION} run manifest")
    return data

"""Reading benchmark files: plain or gzip'd JSON and YAML, with typed errors."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.errors import ConfigurationError


@dataclass(frozen=True, slots=True)
class LoadedBenchmark:
    """The questions of one benchmark file and what had to be left out.

    Attributes:
        name: The benchmark name.
        questions: The questions, in file order.
        skipped: Reason -> number of entries left out (never silently dropped).
    """

    name: str
    questions: tuple[BenchmarkQuestion, ...]
    skipped: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.questions)


def read_json(path: Path) -> Any:
    """Decode a JSON file, gunzipping it when its name ends in ``.gz``.

    Raises:
        ConfigurationError: The file is missing, unreadable or not JSON.
    """
    try:
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        return json.loads(raw.decode("utf-8"))
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f"cannot read {path}: {exc}") from exc


def read_yaml(path: Path) -> Any:
    """Decode a YAML file.

    Raises:
        ConfigurationError: The file is missing, unreadable or not YAML.
    """
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigurationError(f"cannot read {path}: {exc}") from exc


def object_list(data: Any, path: Path, required: set[str]) -> list[dict[str, Any]]:
    """Check that ``data`` is a list of objects that all have the ``required`` keys.

    Raises:
        ConfigurationError: It is not.
    """
    if not isinstance(data, list):
        raise ConfigurationError(f"{path}: expected a JSON list, got {type(data).__name__}")
    for number, item in enumerate(data):
        if not isinstance(item, dict) or not required <= item.keys():
            keys = sorted(item) if isinstance(item, dict) else type(item).__name__
            raise ConfigurationError(f"{path}: entry {number} lacks {sorted(required)} (has {keys})")
    return data


def text_field(item: dict[str, Any], key: str, path: Path) -> str:
    """A required string field.

    Raises:
        ConfigurationError: The field is absent or not a string.
    """
    value = item.get(key)
    if not isinstance(value, str):
        raise ConfigurationError(f"{path}: entry {item.get('id', '?')!r} has no string {key!r}")
    return value

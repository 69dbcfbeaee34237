"""Golden files for the characterisation tests (issue 41): what each face shows, pinned before a refactor.

A test normalises what a face printed or replied (times, temporary paths, thread ids, hashes) and
compares it with ``tests/data/characterisation/<name>.json``; with ``SAGA_UPDATE_GOLDEN=1`` it writes
that file instead. Texts are kept as lists of lines so a changed golden reads as a line diff.

The scripted setting (:func:`scripted_setting`) is one catalog over the example graph shipped with
the package and one keyed scripted model (:mod:`tests.support.keyed_models`), with three runs every
face asks: answered, empty and refused (the read-only guard).
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from saga_kgqa.config.settings import example_graph_path
from tests.support.keyed_models import SCRIPTS_ENV
from tests.support.scripted_model import answer_type

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "data" / "characterisation"
UPDATE_ENV = "SAGA_UPDATE_GOLDEN"
REPO_ROOT = Path(__file__).resolve().parents[2]
#: Read once at import: the tests clear the shell's ``SAGA_*`` settings before they run.
UPDATING = os.environ.get(UPDATE_ENV) == "1"

#: Keys whose values vary between runs: kept as a placeholder (their presence is still pinned).
VOLATILE_KEYS = frozenset(
    {
        "elapsed_s",
        "elapsed",
        "elapsed_ms",
        "latency_s",
        "seconds",
        "duration_s",
        "started_at",
        "finished_at",
        "surveyed_at",
        "created_at",
        "updated_at",
        "timestamp",
        "time",
        "ts",
        "thread_id",
        "run_id",
        "checkpoint_id",
        "wall_s",
        "cpu_s",
    }
)

_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?"), "<time>"),
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uuid>"),
    (re.compile(r"\b(?=[0-9]*[a-f])[0-9a-f]{12,64}\b"), "<hash>"),
    (re.compile(r"\b\d+(?:\.\d+)?(?:e-?\d+)? ?(?:ms|s)\b"), "<dur>"),
    (re.compile(r"/tmp/[^\s\"'`),;]+"), "<tmp>"),
    # Built now or found from an earlier command of this session (kept per content): the same step.
    (re.compile(r"note: (?:building the schema index on the fly|using the schema index built on the fly)[^\n]*"),
     "note: <schema index on the fly>"),
)  # fmt: skip


def normalise_text(text: str, roots: Iterable[Path | str] = ()) -> str:
    """``text`` with run-dependent parts replaced by placeholders (``roots`` become ``<root>``)."""
    for root in sorted({str(r) for r in roots}, key=len, reverse=True):
        text = text.replace(root, "<root>")
    text = text.replace(str(REPO_ROOT), "<repo>")
    for pattern, placeholder in _RULES:
        text = pattern.sub(placeholder, text)
    return text


def normalise(value: Any, roots: Iterable[Path | str] = ()) -> Any:
    """A JSON value with volatile keys' values replaced and every string normalised."""
    roots = tuple(roots)
    if isinstance(value, dict):
        return {
            str(k): ("<volatile>" if k in VOLATILE_KEYS and v is not None else normalise(v, roots))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [normalise(v, roots) for v in value]
    if isinstance(value, str):
        return normalise_text(value, roots)
    if isinstance(value, float) and not value.is_integer():
        return round(value, 4)
    return value


def lines(text: str, roots: Iterable[Path | str] = ()) -> list[str]:
    """Normalised text as lines (trailing blanks dropped), the form goldens keep texts in."""
    return [line.rstrip() for line in normalise_text(text, roots).rstrip("\n").split("\n")] if text else []


def check_golden(name: str, actual: Any) -> None:
    """Compare ``actual`` (JSON-able, already normalised) with the golden ``name``; write it under the update flag."""
    path = GOLDEN_DIR / f"{name}.json"
    rendered = json.dumps(actual, indent=1, ensure_ascii=False) + "\n"
    if UPDATING:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rendered, encoding="utf-8")
        return
    if not path.is_file():
        pytest.fail(f"no golden {path.relative_to(REPO_ROOT)}: run with {UPDATE_ENV}=1 and review it")
    expected = json.loads(path.read_text(encoding="utf-8"))
    # Round-trip so tuples and lists compare alike.
    if json.loads(rendered) != expected:
        before = (json.dumps(expected, indent=1, ensure_ascii=False) + "\n").splitlines()
        diff = difflib.unified_diff(before, rendered.splitlines(), f"golden {path.name}", "now", lineterm="", n=2)
        shown = "\n".join(list(diff)[:80])
        pytest.fail(f"{name}: the face's output differs from its golden ({UPDATE_ENV}=1 rewrites it):\n{shown}")


# --------------------------------------------------------------------------- the scripted setting

EX = "http://example.org/space/"
ANSWERED_SPARQL = f'PREFIX ex: <{EX}> SELECT ?mission WHERE {{ ?mission ex:crewMember ?a . ?a ex:name "Jim Lovell" }}'
EMPTY_SPARQL = f'PREFIX ex: <{EX}> SELECT ?mission WHERE {{ ?mission ex:crewMember ?a . ?a ex:name "Nobody" }}'


def _tool(name: str, **args: str) -> dict[str, Any]:
    return {"tool": name, "args": args}


def _answer_type(label: str) -> str:
    return str(answer_type(label))


@dataclass(frozen=True)
class Run:
    """One scripted run every face asks: its question and the model's replies."""

    name: str
    question: str
    script: tuple[Any, ...]


RUNS = (
    Run(
        "answered",
        "Which missions did Jim Lovell fly?",
        (
            _answer_type("space mission"),
            _tool("search", text="Jim Lovell"),
            _tool("execute", sparql=ANSWERED_SPARQL),
            _tool("stop"),
            _tool("stop"),
        ),
    ),
    Run(
        "empty",
        "Which missions did Nobody fly?",
        (_answer_type("space mission"), _tool("execute", sparql=EMPTY_SPARQL), _tool("stop"), _tool("stop")),
    ),
    Run("refused", "Delete everything.", (_answer_type("thing"), _tool("execute", sparql="DROP ALL"), _tool("stop"))),
)


@dataclass(frozen=True)
class Setting:
    """A catalog over the example graph with the keyed scripted model, and the environment naming both."""

    workdir: Path
    catalog: Path
    env: Mapping[str, str]


def run_key(face: str, run: Run) -> str:
    """The case key one face's run carries in its question."""
    return f"charac-{face}/{run.name}"


def scripted_setting(workdir: Path, faces: Iterable[str]) -> Setting:
    """Write the catalog and the scripts file of every face's runs under ``workdir``."""
    catalog = workdir / "catalog.toml"
    catalog.write_text(
        'default_source = "example"\ndefault_model = "scripted"\n'
        f'[sources.example]\ndata = ["{example_graph_path()}"]\ntitle = "Example"\n'
        '[models.scripted]\nfactory = "tests.support.keyed_models:keyed_factory"\n',
        encoding="utf-8",
    )
    scripts = workdir / "scripts.json"
    scripts.write_text(
        json.dumps({run_key(face, run): list(run.script) for face in faces for run in RUNS}), encoding="utf-8"
    )
    env = {
        "SAGA_CATALOG": str(catalog),
        SCRIPTS_ENV: str(scripts),
        "SAGA_MODEL_FACTORY": "tests.support.keyed_models:keyed_factory",
        "SAGA_SURVEY_DIR": str(workdir / "surveys"),
        "PYTHONPATH": str(REPO_ROOT),
        "LANGSMITH_TRACING": "false",
    }
    return Setting(workdir, catalog, env)


@contextmanager
def scripted_env(setting: Setting, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The setting's environment in this process, with a fresh keyed model (it is built once per process)."""
    import tests.support.keyed_models as keyed
    from saga_kgqa.schema.survey_cache import forget_surveys

    for name in list(os.environ):
        if name.startswith(("SAGA_", "OPENAI_")) and name not in ("SAGA_STORE_CACHE_DIR",):
            monkeypatch.delenv(name)
    for name, value in setting.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(keyed, "_model", None)
    forget_surveys()  # what an earlier test surveyed in this process is not this setting's
    yield

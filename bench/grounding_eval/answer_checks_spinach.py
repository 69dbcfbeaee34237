"""The answer checks on SPINACH's released QALD-10 run (real gpt-4o trajectories), without an LLM.

For each question of ``qald10_spinach_output_test.json.gz`` (SPINACH's final query, its
answer rows and its F1 against the gold) and the matching agent trace
(``qald10_spinach_agent_trace.json.gz``: every action with its observation), the checks of
:mod:`saga_kgqa.checks` read the question, the final query, its rows and the observations
the run had before it ran that query. How many F1 = 0 answers does each check flag, and
how many F1 = 1 answers does it flag wrongly?

Whether an unseen IRI exists offline: a property does when the Wikidata schema index (all
properties' metadata) has it; an entity cannot be told offline and is taken to exist, so
know-before-use here reports invented properties only.

No model predicts the answer type here, so the expected kind is read from the question's
wording (:func:`expected_kind`): "how many" a count, "when"/"what year" a date, yes/no
openings a boolean; otherwise unknown (the answer-type check then says nothing).
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from saga_kgqa.checks import CHECKS, CheckInput, CheckName, run_checks
from saga_kgqa.checks.models import ExpectedKind
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.core.result import Term, TermKind
from saga_kgqa.schema.wikidata_metadata import read_property_metadata

OUTPUT_FILE = Path("spinach") / "qald10_spinach_output_test.json.gz"
TRACE_FILE = Path("spinach") / "qald10_spinach_agent_trace.json.gz"
_SPACE = re.compile(r"\s+")


@dataclass(slots=True)
class CheckTally:
    """Flags per check among wrong (F1 = 0) and right (F1 = 1) answers."""

    wrong: int = 0
    right: int = 0
    flagged_wrong: dict[str, int] = field(default_factory=dict)
    flagged_right: dict[str, int] = field(default_factory=dict)
    any_wrong: int = 0
    any_right: int = 0
    examples: list[str] = field(default_factory=list)

    def share(self, flagged: int, total: int) -> float:
        """A share, 0 for no questions."""
        return flagged / total if total else 0.0


def expected_kind(question: str) -> ExpectedKind:
    """The answer kind the question's wording asks for (a stand-in for the model's prediction)."""
    text = question.strip().lower()
    if re.match(r"(how many|how much|what is the number of|what number of)\b", text):
        return "count"
    if re.match(r"(is|are|was|were|do|does|did|has|have|had|can|could|will|would)\b", text):
        return "boolean"
    if re.match(r"(when|in which year|in what year|what year|which year|on what date|what date)\b", text):
        return "date"
    return "unknown"


def spinach_items(data_dir: Path, exists: Callable[[str], bool] | None = None) -> Iterator[tuple[CheckInput, float]]:
    """Every SPINACH QALD-10 answer as a check input, with its F1 (``exists``: see :class:`CheckInput`)."""
    outputs = _read(data_dir / OUTPUT_FILE)
    traces = {str(t.get("question")): t for t in _read(data_dir / TRACE_FILE) if isinstance(t, dict)}
    for output in outputs:
        question = str(output.get("question", ""))
        sparql = str(output.get("predicted_sparql") or "")
        if not sparql.strip():
            continue
        rows, boolean = _rows(output.get("predicted_answer_tuple"))
        trace = traces.get(question, {})
        item = CheckInput(
            question=question,
            sparql=sparql,
            rows=rows,
            boolean=boolean,
            expected=expected_kind(question),
            observations=_observations_before(trace, sparql),
            exists=exists,
        )
        yield item, float(output.get("f1") or 0.0)


def property_exists(data_dir: Path) -> Callable[[str], bool]:
    """Offline existence test: a Wikidata property exists when its metadata is known; entities are assumed to."""
    known = {iri.rsplit("/", 1)[-1] for iri in read_property_metadata(data_dir / "wikidata_properties_isi")}

    def exists(iri: str) -> bool:
        local = re.split(r"[/#]", iri)[-1]
        return not re.fullmatch(r"P[0-9]+", local) or local in known

    return exists


def measure(
    data_dir: Path,
    prefixes: Mapping[str, str],
    exists: Callable[[str], bool] | None = None,
    examples: int = 3,
) -> CheckTally:
    """Run every check over SPINACH's answers and tally the flags by F1."""
    tally = CheckTally()
    enabled: tuple[CheckName, ...] = tuple(CHECKS)
    for item, f1 in spinach_items(data_dir, exists):
        if 0.0 < f1 < 1.0:
            continue
        findings = run_checks(item, prefixes, enabled)
        names = {f.check for f in findings}
        right = f1 >= 1.0
        if right:
            tally.right += 1
            tally.any_right += bool(names)
        else:
            tally.wrong += 1
            tally.any_wrong += bool(names)
        counts = tally.flagged_right if right else tally.flagged_wrong
        for name in names:
            counts[name] = counts.get(name, 0) + 1
        if right and findings and len(tally.examples) < examples:
            tally.examples.append(f"right but flagged: {item.question[:80]!r}: {findings[0].text()}")
    return tally


def _observations_before(trace: Mapping[str, Any], sparql: str) -> tuple[str, ...]:
    """Observations of the actions before the run first executed its final query."""
    final = _SPACE.sub(" ", sparql).strip()
    seen: list[str] = []
    for action in trace.get("actions", []) if isinstance(trace.get("actions"), list) else []:
        if not isinstance(action, dict):
            continue
        argument = _SPACE.sub(" ", str(action.get("action_argument", ""))).strip()
        if action.get("action_name") == "execute_sparql" and argument == final:
            break
        observation = action.get("observation")
        if isinstance(observation, str):
            seen.append(observation)
    return tuple(seen)


def _rows(raw: Any) -> tuple[list[dict[str, Term]], bool | None]:
    """SPINACH's answer tuples as result rows (a bare ``true``/``false`` is an ASK answer)."""
    if isinstance(raw, bool):
        return [], raw
    if not isinstance(raw, list):
        return [], None
    rows = []
    for row in raw:
        if not isinstance(row, dict):
            continue
        terms = {}
        for name, cell in row.items():
            if isinstance(cell, dict) and "value" in cell:
                kind: TermKind = "uri" if cell.get("type") == "uri" else "literal"
                terms[str(name)] = Term(kind, str(cell["value"]), cell.get("datatype"), cell.get("xml:lang"))
        rows.append(terms)
    return rows, None


def _read(path: Path) -> list[Any]:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, EOFError, ValueError) as exc:
        raise ConfigurationError(f"cannot read {path}: {exc}") from exc
    if not isinstance(data, list):
        raise ConfigurationError(f"{path} is not a list")
    return data

"""Read the Wikidata facts inside SPINACH's recorded QALD-10 agent traces.

The traces (``spinach/qald10_spinach_agent_trace.json.gz``) hold real 2024 responses of
the live Wikidata tools. Their observation formats are SPINACH's (docs/reference-systems.md
section 1.2):

* ``search_wikidata``: one hit a line, ``Label (Q42): description``;
* ``get_wikidata_entry``: JSON ``"label (P31)": "label (Q5)"`` (or a list of values, or a
  value mapped to ``{"Qualifiers": [{"label (P585)": "1 January 2016"}]}``), already cut
  down by an LLM to the properties it found relevant;
* ``get_property_examples``: ``subject -- property label --> object`` lines, by label only;
* ``execute_sparql``: a pandas table, QIDs shortened.

Only what these formats say for certain is read; an execution is read only when its
query is one triple pattern ``wd:Q wdt:P ?v`` (anything richer is ambiguous to invert).
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from saga_kgqa.errors import ConfigurationError

TRACE_FILE = Path("spinach") / "qald10_spinach_agent_trace.json.gz"

_LABELLED_ID = re.compile(r"^(?P<label>.*) \((?P<id>[QP][1-9][0-9]*)\)$", re.DOTALL)
_SEARCH_LINE = re.compile(r"^(?P<label>.*?) \((?P<id>[QP][1-9][0-9]*)\): ?(?P<description>.*)$")
_EXAMPLE_LINE = re.compile(r"^(?P<subject>.+?) -- (?P<property>.+?) --> (?P<object>.+)$")
_BARE_ID = re.compile(r"^[QP][1-9][0-9]*$")
_ONE_PATTERN = re.compile(
    r"^\s*SELECT\s+(?:DISTINCT\s+)?\?(?P<var>\w+)(?:\s+\?(?P=var)Label)?\s+WHERE\s*\{\s*"
    r"wd:(?P<subject>Q[1-9][0-9]*)\s+wdt:(?P<pid>P[1-9][0-9]*)\s+\?(?P=var)\s*\.?\s*"
    r"(?:SERVICE\s+wikibase:label\s*\{[^{}]*\}\s*\.?\s*)?\}\s*(?:LIMIT\s+\d+\s*)?$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Labelled:
    """An entity or property named in a response: id, label and (from search) description."""

    id: str
    label: str
    description: str | None = None


@dataclass(frozen=True, slots=True)
class TraceValue:
    """One value of a statement: an item (``id`` set, with its label) or a literal text."""

    text: str
    id: str | None = None


@dataclass(frozen=True, slots=True)
class TraceStatement:
    """One statement read from a lookup or an execution.

    Attributes:
        subject: The subject QID.
        pid: The property id.
        value: The value.
        qualifiers: ``(qualifier pid, value)`` pairs (lookups only).
        origin: ``lookup`` or ``execution``.
    """

    subject: str
    pid: str
    value: TraceValue
    qualifiers: tuple[tuple[str, TraceValue], ...] = ()
    origin: str = "lookup"


@dataclass(frozen=True, slots=True)
class TraceExample:
    """One ``get_property_examples`` line: subject and object by label (or bare id)."""

    pid: str
    property_label: str
    subject: str
    object: str


@dataclass(slots=True)
class TraceFacts:
    """Everything read from the traces, with counts of what could not be read.

    Attributes:
        names: Entities and properties with labels (search hits, lookup keys and values).
        statements: Statements from lookups and single-pattern executions.
        examples: Property examples by label.
        calls: Observations read per tool.
        skipped: Observations (or lines) not understood, per tool.
    """

    names: list[Labelled] = field(default_factory=list)
    statements: list[TraceStatement] = field(default_factory=list)
    examples: list[TraceExample] = field(default_factory=list)
    calls: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)

    def tally(self, table: dict[str, int], tool: str) -> None:
        """Count one observation of ``tool`` in ``table`` (``calls`` or ``skipped``)."""
        table[tool] = table.get(tool, 0) + 1


def load_traces(path: Path) -> list[dict[str, Any]]:
    """The traces file's questions: each a dict with ``question``, ``generated_sparqls`` and ``actions``.

    Raises:
        ConfigurationError: The file is missing or not the traces' JSON.
    """
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            questions = json.load(handle)
    except FileNotFoundError:
        raise ConfigurationError(f"SPINACH trace file not found: {path}") from None
    except (OSError, EOFError, ValueError) as exc:
        raise ConfigurationError(f"cannot read {path}: {exc}") from exc
    if not isinstance(questions, list):
        raise ConfigurationError(f"{path} is not a list of agent traces")
    return [question for question in questions if isinstance(question, dict)]


def read_trace(path: Path) -> TraceFacts:
    """Read every observation of the traces file.

    Raises:
        ConfigurationError: The file is missing or not the traces' JSON.
    """
    facts = TraceFacts()
    for action in _actions(load_traces(path)):
        name = str(action.get("action_name", ""))
        argument = str(action.get("action_argument", ""))
        observation = action.get("observation")
        if not isinstance(observation, str):
            continue
        facts.tally(facts.calls, name)
        reader = _READERS.get(name)
        if reader is not None and not reader(facts, argument, observation):
            facts.tally(facts.skipped, name)
    return facts


def _actions(questions: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for question in questions:
        yield from (a for a in question.get("actions", []) if isinstance(a, dict))


def _read_search(facts: TraceFacts, _argument: str, observation: str) -> bool:
    read = False
    for line in observation.splitlines():
        match = _SEARCH_LINE.match(line.strip())
        if match:
            description = match["description"].strip() or None
            facts.names.append(Labelled(match["id"], match["label"], description))
            read = True
    return read


def _read_lookup(facts: TraceFacts, argument: str, observation: str) -> bool:
    subject = argument.strip()
    if not subject.startswith("Q") or not _BARE_ID.match(subject):
        return False
    try:
        entry = json.loads(observation)
    except ValueError:
        return False
    if not isinstance(entry, dict):
        return False
    for key, raw in entry.items():
        prop = _LABELLED_ID.match(key)
        if prop is None or not prop["id"].startswith("P"):
            continue  # "value/P585 (P585)" keys are value-node links, not properties
        facts.names.append(Labelled(prop["id"], prop["label"]))
        for value, qualifiers in _values(raw, facts):
            facts.statements.append(TraceStatement(subject, prop["id"], value, qualifiers))
    return True


def _values(raw: Any, facts: TraceFacts) -> Iterator[tuple[TraceValue, tuple[tuple[str, TraceValue], ...]]]:
    """Yield the values of one property: a string, a list of them, or values mapped to qualifiers."""
    if isinstance(raw, list):
        for item in raw:
            yield from _values(item, facts)
    elif isinstance(raw, dict):
        for text, detail in raw.items():
            yield _value(str(text), facts), _qualifiers(detail, facts)
    elif raw is not None:
        yield _value(str(raw), facts), ()


def _qualifiers(detail: Any, facts: TraceFacts) -> tuple[tuple[str, TraceValue], ...]:
    found: list[tuple[str, TraceValue]] = []
    groups = detail.get("Qualifiers", []) if isinstance(detail, dict) else []
    for group in groups if isinstance(groups, list) else []:
        for key, raw in group.items() if isinstance(group, dict) else ():
            prop = _LABELLED_ID.match(str(key))
            if prop is None or key.startswith("value/") or isinstance(raw, dict | list):
                continue
            facts.names.append(Labelled(prop["id"], prop["label"]))
            found.append((prop["id"], _value(str(raw), facts)))
    return tuple(found)


def _value(text: str, facts: TraceFacts) -> TraceValue:
    match = _LABELLED_ID.match(text)
    if match and match["id"].startswith("Q"):
        facts.names.append(Labelled(match["id"], match["label"]))
        return TraceValue(match["label"], match["id"])
    return TraceValue(text)


def _read_examples(facts: TraceFacts, argument: str, observation: str) -> bool:
    pid = argument.strip()
    if not pid.startswith("P") or not _BARE_ID.match(pid):
        return False
    read = False
    for line in observation.splitlines():
        match = _EXAMPLE_LINE.match(line.strip())
        if match:
            facts.examples.append(TraceExample(pid, match["property"], match["subject"], match["object"]))
            read = True
    return read


def _read_execution(facts: TraceFacts, argument: str, observation: str) -> bool:
    """Read ``wd:Q wdt:P ?v`` executions: one value per table line (``Q1265 Colorado River`` with labels)."""
    query = _ONE_PATTERN.match(argument)
    lines = [line.strip() for line in observation.splitlines() if line.strip()]
    if query is None or len(lines) < 2:
        return False
    labelled = query.group(0).lower().count("label") >= 2 and lines[0].split()[-1].endswith("Label")
    for line in lines[1:]:
        head, _, rest = line.partition(" ")
        if labelled and _BARE_ID.match(head) and rest.strip():
            facts.names.append(Labelled(head, rest.strip()))
            value = TraceValue(rest.strip(), head)
        elif _BARE_ID.match(line) and line.startswith("Q"):
            value = TraceValue(line, line)
        elif labelled:
            return False
        else:
            value = TraceValue(line)
        facts.statements.append(TraceStatement(query["subject"], query["pid"], value, origin="execution"))
    return True


_READERS = {
    "search_wikidata": _read_search,
    "get_wikidata_entry": _read_lookup,
    "get_property_examples": _read_examples,
    "execute_sparql": _read_execution,
}

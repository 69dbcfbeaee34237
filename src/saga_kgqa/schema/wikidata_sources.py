"""Offline Wikidata sources besides the property metadata: text2kgbench ontologies and CoDEx triples.

``text2kgbench_wikidata_ontologies`` gives curated domains and ranges as QIDs per
property. CoDEx gives real Wikidata triples (``Qid Pid Qid``) with the P31 types of
their entities, from which the subject and object types of every property are counted:
the paper's induction, done over the whole file instead of an endpoint sample.
"""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.schema.induction import MAX_EVIDENCE_TYPES
from saga_kgqa.schema.model import SideEvidence, TypeCount
from saga_kgqa.schema.yago_shapes import CuratedSchema

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
_QID = re.compile(r"Q[1-9][0-9]*")
_PID = re.compile(r"P[1-9][0-9]*")
#: KGTK's subset of Wikidata's class hierarchy (``../shared/data/wikidata_p279/``, data README §4b).
P279_DIR = "wikidata_p279"
P279_FILE = "derived.P279.tsv.gz"
P279_ORIGIN = "kgtk-p279"


def read_p279_edges(path: Path) -> Iterator[tuple[str, str]]:
    """Yield ``(class QID, superclass QID)`` from a KGTK edge file (``id node1 label node2``, P279 rows only).

    Raises:
        ConfigurationError: The file is missing, or its header lacks ``node1``/``label``/``node2``.
    """
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            header = handle.readline().rstrip("\n").split("\t")
            try:
                node1, label, node2 = header.index("node1"), header.index("label"), header.index("node2")
            except ValueError:
                raise ConfigurationError(f"{path}: not a KGTK edge file (header {header[:4]})") from None
            for line in handle:
                parts = line.rstrip("\n").split("\t")
                if len(parts) <= max(node1, label, node2) or parts[label] != "P279":
                    continue
                child, parent = parts[node1], parts[node2]
                if _QID.fullmatch(child) and _QID.fullmatch(parent):
                    yield child, parent
    except (OSError, EOFError) as exc:
        raise ConfigurationError(f"cannot read {path}: {exc}") from exc


def read_text2kgbench(directory: Path, *, name: str = "text2kgbench_wikidata_ontologies") -> CuratedSchema:
    """Read the domain and range QIDs of every relation of every ontology (a union across ontologies).

    Args:
        directory: The directory holding the ``*_ontology.json`` files.
        name: Origin name recorded for what these files contribute.

    Raises:
        ConfigurationError: No ontology file is there, or one is malformed.
    """
    files = sorted(directory.glob("*_ontology.json"))
    if not files:
        raise ConfigurationError(f"no text2kgbench *_ontology.json files in {directory}")
    schema = CuratedSchema(name=name)
    for path in files:
        data = _load_json(path)
        try:
            for concept in data.get("concepts", []):
                if _QID.fullmatch(str(concept.get("qid", ""))) and concept.get("label"):
                    schema.labels.setdefault(WD + concept["qid"], str(concept["label"]))
            for relation in data.get("relations", []):
                pid = str(relation.get("pid", ""))
                if not _PID.fullmatch(pid):
                    schema.notes.append(f"{path.name}: relation without a property id: {relation!r:.80}")
                    continue
                for side, target in (("domain", schema.domains), ("range", schema.ranges)):
                    qid = str(relation.get(side) or "")
                    if _QID.fullmatch(qid):
                        target[WDT + pid].add(WD + qid)
        except (AttributeError, TypeError) as exc:
            raise ConfigurationError(f"{path} is not a text2kgbench ontology: {exc}") from exc
    return schema


def read_entity_types(path: Path) -> dict[str, frozenset[str]]:
    """Read CoDEx's ``entity2types.json.gz``: entity QID to its P31 type IRIs.

    Raises:
        ConfigurationError: The file is missing or malformed.
    """
    data = _load_json(path)
    if not isinstance(data, dict):
        raise ConfigurationError(f"{path} does not map entities to types")
    return {qid: frozenset(WD + t for t in types if _QID.fullmatch(str(t))) for qid, types in data.items()}


def read_type_labels(path: Path) -> dict[str, tuple[str | None, str | None]]:
    """Read CoDEx's ``types_en.json.gz``: type IRI to (label, description).

    Raises:
        ConfigurationError: The file is missing or malformed.
    """
    data = _load_json(path)
    if not isinstance(data, dict):
        raise ConfigurationError(f"{path} does not map types to labels")
    return {WD + qid: (info.get("label"), info.get("description")) for qid, info in data.items() if _QID.fullmatch(qid)}


def read_triples(paths: Iterable[Path]) -> Iterator[tuple[str, str, str]]:
    """Yield ``(subject QID, PID, object QID)`` from CoDEx triple files (gzip or plain).

    Raises:
        ConfigurationError: A file is missing or a line is not three ids.
    """
    for path in paths:
        opener = gzip.open if path.suffix == ".gz" else open
        try:
            with opener(path, "rt", encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    parts = line.split()
                    if not parts:
                        continue
                    if len(parts) != 3 or not _PID.fullmatch(parts[1]):
                        raise ConfigurationError(f"{path}:{number}: not a 'Qid Pid Qid' triple: {line.strip()[:80]!r}")
                    yield parts[0], parts[1], parts[2]
        except FileNotFoundError:
            raise ConfigurationError(f"CoDEx triple file not found: {path}") from None
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            raise ConfigurationError(f"cannot read {path}: {exc}") from exc


def count_side_types(
    triples: Iterable[tuple[str, str, str]], entity_types: dict[str, frozenset[str]]
) -> dict[str, dict[str, SideEvidence]]:
    """Count the types of the distinct subjects and objects of every property.

    Returns:
        Per direct-property IRI, ``subject`` and ``object`` evidence: distinct values,
        untyped ones, and the most frequent types.
    """
    values: dict[tuple[str, str], set[str]] = defaultdict(set)
    for subject, pid, obj in triples:
        values[(pid, "subject")].add(subject)
        values[(pid, "object")].add(obj)
    evidence: dict[str, dict[str, SideEvidence]] = defaultdict(dict)
    for (pid, side), entities in values.items():
        counts: Counter[str] = Counter()
        untyped = 0
        for entity in entities:
            types = entity_types.get(entity)
            if types:
                counts.update(types)
            else:
                untyped += 1
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:MAX_EVIDENCE_TYPES]
        evidence[WDT + pid][side] = SideEvidence(
            sampled=len(entities),
            untyped=untyped,
            counts=tuple(TypeCount(type_iri=t, count=n) for t, n in ranked),
        )
    return dict(evidence)


def _load_json(path: Path) -> Any:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        raise ConfigurationError(f"file not found: {path}") from None
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f"cannot read {path}: {exc}") from exc

"""Build an offline Wikidata store, in Wikidata's RDF layout, from the real Wikidata data we hold.

Sources (read from the third-party data directory, never copied into the project):

* CoDEx-S/M training and validation triples (``wd:Q wdt:P wd:Q``), their entities' P31
  types, type labels and descriptions, and the labels of its 71 relations;
* KGTK's subset of Wikidata's class hierarchy (``wikidata_p279/``: 22,064 direct P279 edges);
* the property metadata of ``wikidata_properties_isi``: labels, aliases, descriptions,
  datatypes and P1855 "Wikidata property example" subjects;
* SPINACH's recorded QALD-10 tool responses (:mod:`saga_kgqa.dialects.spinach_trace`):
  search hits (labels, descriptions), lookup statements with qualifiers (``p:``/``ps:``/``pq:``
  statement nodes), property examples (P1855 statements with the example's value as a
  qualifier) and single-pattern executions.

Provenance: every triple lives in the named graph of the first source that gave it
(``<urn:saga:source:codex-m-train>``...), in the order above. Each triple is stored once,
because the embedded store answers over the union of all graphs and a triple in two
graphs would be counted twice. ``GRAPH ?g { ... }`` tells where a triple came from.

CoDEx-S and CoDEx-M test triples are never loaded, from any source: benchmarks check them.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

import pyoxigraph as ox

from saga_kgqa.dialects.spinach_trace import TRACE_FILE, TraceFacts, TraceValue, read_trace
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.schema.vocab import RDF_TYPE, RDFS_LABEL, SCHEMA_ORG, SKOS, XSD
from saga_kgqa.schema.wikidata_metadata import CLAIMS_FILE, read_property_metadata
from saga_kgqa.schema.wikidata_sources import (
    P279_DIR,
    P279_FILE,
    P279_ORIGIN,
    read_entity_types,
    read_p279_edges,
    read_triples,
    read_type_labels,
)

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
P = "http://www.wikidata.org/prop/"
PS = "http://www.wikidata.org/prop/statement/"
PQ = "http://www.wikidata.org/prop/qualifier/"
WDS = "http://www.wikidata.org/entity/statement/"
WIKIBASE = "http://wikiba.se/ontology#"
SCHEMA_DESCRIPTION = SCHEMA_ORG + "description"
SKOS_ALT_LABEL = SKOS + "altLabel"
SOURCE_GRAPH = "urn:saga:source:"
MANIFEST = "saga-wikidata-store.json"
#: CoDEx splits loaded; the test splits stay out (benchmarks hold them out).
CODEX_SPLITS: tuple[str, ...] = ("codex-m/train", "codex-m/valid", "codex-s/train", "codex-s/valid")
HELD_OUT_SPLITS: tuple[str, ...] = ("codex-m/test", "codex-s/test")
_CHUNK = 50_000
_INTEGER = re.compile(r"^[+-]?[0-9]+$")
_DECIMAL = re.compile(r"^[+-]?[0-9]+\.[0-9]+$")
_ISO_TIME = re.compile(r"^[+-]?[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")

Progress = Callable[[str, int], None]
#: The build's steps, in order (progress is reported after each).
BUILD_STEPS: tuple[str, ...] = (
    "codex triples",
    "codex types",
    "class hierarchy",
    "property metadata",
    "spinach traces",
)


@dataclass(slots=True)
class StoreReport:
    """What the builder loaded, per source graph, and what it left out.

    Attributes:
        store: The store directory.
        triples: Triples in the store.
        by_source: Triples per source graph (the graph IRI's last segment).
        entities: Distinct ``wd:Q`` subjects.
        labelled_entities: ``wd:Q`` subjects with an ``rdfs:label``.
        typed_entities: ``wd:Q`` subjects with a ``wdt:P31``.
        held_out: Triples left out because they are CoDEx test triples.
        duplicates: Triples left out because an earlier source already gave them.
        unresolved_examples: Property-example lines whose subject label names no known entity.
        trace_skipped: Trace observations not understood, per tool.
    """

    store: str
    triples: int = 0
    by_source: dict[str, int] = field(default_factory=dict)
    entities: int = 0
    labelled_entities: int = 0
    typed_entities: int = 0
    held_out: int = 0
    duplicates: int = 0
    unresolved_examples: int = 0
    trace_skipped: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        """The report as plain data (what the manifest file holds)."""
        return asdict(self)


class _QuadWriter:
    """Collects quads, each triple once (first source wins), never a held-out triple."""

    def __init__(
        self,
        store: ox.Store,
        held_out: set[tuple[str, str, str]],
        report: StoreReport,
        per_source: int | None = None,
    ) -> None:
        self._store = store
        self._per_source = per_source
        self._held_out = held_out
        self._report = report
        self._seen: set[tuple[str, str, str]] = set()
        self._pending: list[ox.Quad] = []
        self.labelled: set[str] = set()

    def add(self, source: str, subject: str, predicate: str, obj: ox.NamedNode | ox.Literal) -> None:
        key = (subject, predicate, obj.value if isinstance(obj, ox.NamedNode) else str(obj))
        if predicate.startswith(WDT) and key in self._held_out:
            self._report.held_out += 1
            return
        if key in self._seen:
            self._report.duplicates += 1
            return
        if self._per_source is not None and self._report.by_source.get(source, 0) >= self._per_source:
            return
        self._seen.add(key)
        self._pending.append(ox.Quad(ox.NamedNode(subject), ox.NamedNode(predicate), obj, _graph(source)))
        self._report.by_source[source] = self._report.by_source.get(source, 0) + 1
        if len(self._pending) >= _CHUNK:
            self.flush()

    def name(self, source: str, entity: str, label: str | None, description: str | None = None) -> None:
        """Give an entity its label (the first one; later different ones become aliases) and description."""
        if label:
            predicate = SKOS_ALT_LABEL if entity in self.labelled else RDFS_LABEL
            self.labelled.add(entity)
            self.add(source, entity, predicate, ox.Literal(label, language="en"))
        if description:
            self.add(source, entity, SCHEMA_DESCRIPTION, ox.Literal(description, language="en"))

    def flush(self) -> None:
        if self._pending:
            self._store.bulk_extend(self._pending)
            self._pending = []


def build_wikidata_store(
    data_dir: Path,
    store_dir: Path,
    *,
    progress: Progress | None = None,
    hierarchy: bool = True,
    per_source: int | None = None,
) -> StoreReport:
    """Build the offline Wikidata store from ``data_dir`` into a new directory ``store_dir``.

    Args:
        data_dir: The third-party data directory (``../shared/data``).
        store_dir: Where to create the store; must not exist or be empty.
        progress: Called with a step name and the triples written so far.
        hierarchy: Load KGTK's P279 edges (``wikidata_p279/``, graph ``<urn:saga:source:kgtk-p279>``);
            ``False`` builds the store without a class hierarchy, as a small private graph may be.
        per_source: At most this many triples from each source, the first ones read (a trial store: the
            benches' smoke mode); ``None`` keeps them all.

    Returns:
        What was loaded (also written to ``saga-wikidata-store.json`` in the store).

    Raises:
        ConfigurationError: ``store_dir`` holds something, or a source is missing or malformed.
    """
    if store_dir.exists() and any(store_dir.iterdir()):
        raise ConfigurationError(f"{store_dir} is not empty; give a new directory for the store")
    codex = data_dir / "codex"
    held_out = {
        (WD + s, WDT + p, WD + o)
        for s, p, o in read_triples(codex / "triples" / f"{split}.txt.gz" for split in HELD_OUT_SPLITS)
    }
    store_dir.mkdir(parents=True, exist_ok=True)
    store = ox.Store(str(store_dir))
    report = StoreReport(store=str(store_dir))
    writer = _QuadWriter(store, held_out, report, per_source)
    facts = read_trace(data_dir / TRACE_FILE)
    steps: dict[str, Callable[[], None]] = {
        "codex triples": lambda: _codex_triples(writer, codex),
        "codex types": lambda: _codex_types(writer, codex),
        "class hierarchy": lambda: _class_hierarchy(writer, data_dir) if hierarchy else None,
        "property metadata": lambda: _property_metadata(writer, data_dir / "wikidata_properties_isi"),
        "spinach traces": lambda: _trace(writer, facts, report),
    }
    try:
        for name in BUILD_STEPS:
            steps[name]()
            writer.flush()
            if progress is not None:
                progress(name, sum(report.by_source.values()))
        store.flush()
        store.optimize()
        _count(store, report)
    finally:
        del store
    report.trace_skipped = dict(sorted(facts.skipped.items()))
    (store_dir / MANIFEST).write_text(json.dumps(report.as_dict(), indent=2) + "\n")
    return report


def _graph(source: str) -> ox.NamedNode:
    return ox.NamedNode(SOURCE_GRAPH + source)


def _codex_triples(writer: _QuadWriter, codex: Path) -> None:
    for split in CODEX_SPLITS:
        source = split.replace("/", "-")
        for s, pid, o in read_triples([codex / "triples" / f"{split}.txt.gz"]):
            writer.add(source, WD + s, WDT + pid, ox.NamedNode(WD + o))
    relations = codex / "relations_en.json"
    try:
        names = json.loads(relations.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"cannot read {relations}: {exc}") from exc
    for pid, info in sorted(names.items()):
        if isinstance(info, dict):
            _declare_property(writer, "codex-relations-en", pid)
            writer.name("codex-relations-en", WD + pid, info.get("label"), info.get("description"))


def _codex_types(writer: _QuadWriter, codex: Path) -> None:
    for qid, types in sorted(read_entity_types(codex / "entity2types.json.gz").items()):
        for type_iri in sorted(types):
            writer.add("codex-entity-types", WD + qid, WDT + "P31", ox.NamedNode(type_iri))
    for type_iri, (label, description) in sorted(read_type_labels(codex / "types_en.json.gz").items()):
        writer.name("codex-types-en", type_iri, label, description)


def _class_hierarchy(writer: _QuadWriter, data_dir: Path) -> None:
    """KGTK's P279 edges as ``wd:Q wdt:P279 wd:Q`` in their own graph (only the direct edges: queries use ``P279+``).

    A data directory without ``wikidata_p279/`` gives a store without a hierarchy (the manifest's
    ``by_source`` then has no ``kgtk-p279``).
    """
    if not (data_dir / P279_DIR).is_dir():
        return
    for child, parent in read_p279_edges(data_dir / P279_DIR / P279_FILE):
        writer.add(P279_ORIGIN, WD + child, WDT + "P279", ox.NamedNode(WD + parent))


def _property_metadata(writer: _QuadWriter, directory: Path) -> None:
    source = "wikidata-properties-isi"
    for direct, meta in sorted(read_property_metadata(directory).items()):
        pid = direct.removeprefix(WDT)
        _declare_property(writer, source, pid, meta.datatype)
        writer.name(source, WD + pid, meta.label, meta.description)
    for pid, subject in _example_subjects(directory / CLAIMS_FILE):
        writer.add(source, WD + pid, WDT + "P1855", ox.NamedNode(WD + subject))


def _example_subjects(path: Path) -> Iterator[tuple[str, str]]:
    """Yield (property, example subject QID) from the P1855 claims (their values are not in the file)."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 4 and parts[2] == "P1855" and parts[3].startswith("Q"):
                    yield parts[1], parts[3]
    except (OSError, EOFError) as exc:
        raise ConfigurationError(f"cannot read {path}: {exc}") from exc


def _declare_property(writer: _QuadWriter, source: str, pid: str, datatype: str | None = None) -> None:
    entity = WD + pid
    writer.add(source, entity, RDF_TYPE, ox.NamedNode(WIKIBASE + "Property"))
    writer.add(source, entity, WIKIBASE + "directClaim", ox.NamedNode(WDT + pid))
    writer.add(source, entity, WIKIBASE + "claim", ox.NamedNode(P + pid))
    writer.add(source, entity, WIKIBASE + "statementProperty", ox.NamedNode(PS + pid))
    writer.add(source, entity, WIKIBASE + "qualifier", ox.NamedNode(PQ + pid))
    if datatype:
        writer.add(source, entity, WIKIBASE + "propertyType", ox.NamedNode(datatype))


def _trace(writer: _QuadWriter, facts: TraceFacts, report: StoreReport) -> None:
    for named in facts.names:
        source = "spinach-qald10-search" if named.description else "spinach-qald10-names"
        writer.name(source, WD + named.id, named.label, named.description)
    for statement in facts.statements:
        source = f"spinach-qald10-{statement.origin}"
        value = _term(statement.value)
        if value is None:
            continue
        subject = WD + statement.subject
        writer.add(source, subject, WDT + statement.pid, value)
        if statement.qualifiers:
            node = _statement_iri(statement.subject, statement.pid, statement.value, statement.qualifiers)
            writer.add(source, subject, P + statement.pid, ox.NamedNode(node))
            writer.add(source, node, PS + statement.pid, value)
            for qualifier, qualifier_value in statement.qualifiers:
                term = _term(qualifier_value)
                if term is not None:
                    writer.add(source, node, PQ + qualifier, term)
    by_label = _unique_labels(facts)
    for example in facts.examples:
        example_subject = _resolve(example.subject, by_label)
        example_object = _resolve(example.object, by_label)
        if example_subject is None:
            report.unresolved_examples += 1
            continue
        source = "spinach-qald10-examples"
        writer.add(source, WD + example.pid, WDT + "P1855", ox.NamedNode(WD + example_subject))
        if example_object is not None:
            pair = (("x", TraceValue(example_object)),)
            node = _statement_iri(example.pid, "P1855", TraceValue(example_subject, example_subject), pair)
            writer.add(source, WD + example.pid, P + "P1855", ox.NamedNode(node))
            writer.add(source, node, PS + "P1855", ox.NamedNode(WD + example_subject))
            writer.add(source, node, PQ + example.pid, ox.NamedNode(WD + example_object))


def _unique_labels(facts: TraceFacts) -> dict[str, str]:
    """Labels that name exactly one item in the traces (ambiguous ones resolve to nothing)."""
    ids: dict[str, set[str]] = {}
    for named in facts.names:
        if named.id.startswith("Q"):
            ids.setdefault(named.label, set()).add(named.id)
    return {label: next(iter(found)) for label, found in ids.items() if len(found) == 1}


def _resolve(text: str, by_label: dict[str, str]) -> str | None:
    if re.fullmatch(r"Q[1-9][0-9]*", text):
        return text
    return by_label.get(text)


def _statement_iri(subject: str, pid: str, value: TraceValue, qualifiers: Iterable[tuple[str, TraceValue]]) -> str:
    """A stable statement-node IRI in Wikidata's ``wds:`` space (a digest: the real GUID is unknown)."""
    key = json.dumps([subject, pid, value.id or value.text, sorted((q, v.id or v.text) for q, v in qualifiers)])
    return f"{WDS}{subject}-saga-{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def _term(value: TraceValue) -> ox.NamedNode | ox.Literal | None:
    """An RDF term for a recorded value: an item, a number, a date, or a string."""
    if value.id is not None:
        return ox.NamedNode(WD + value.id)
    text = value.text.strip()
    if not text or text.startswith("http://www.wikidata.org/value/"):
        return None  # a link to a value node whose content the trace does not show
    if _INTEGER.match(text) or _DECIMAL.match(text):
        return ox.Literal(text.lstrip("+"), datatype=ox.NamedNode(XSD + "decimal"))
    if _ISO_TIME.match(text):
        return ox.Literal(text, datatype=ox.NamedNode(XSD + "dateTime"))
    day = _day(text)
    if day is not None:
        return ox.Literal(day, datatype=ox.NamedNode(XSD + "dateTime"))
    if text.startswith(("http://", "https://")):
        try:
            return ox.NamedNode(text)
        except ValueError:
            return ox.Literal(text)  # not a valid IRI: keep the text
    return ox.Literal(text)


def _day(text: str) -> str | None:
    """SPINACH renders dates as ``1 January 2016``; Wikidata stores ``2016-01-01T00:00:00Z``."""
    try:
        parsed = datetime.strptime(text, "%d %B %Y")
    except ValueError:
        return None
    return parsed.strftime("%Y-%m-%dT00:00:00Z")


def _count(store: ox.Store, report: StoreReport) -> None:
    def one(query: str) -> int:
        solutions = store.query(query, use_default_graph_as_union=True)
        for solution in solutions:  # type: ignore[union-attr]
            term = solution["n"]
            return int(term.value) if term is not None else 0
        return 0

    report.triples = len(store)
    report.entities = one(f"SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {{ ?s ?p ?o FILTER(STRSTARTS(STR(?s), '{WD}Q')) }}")
    report.labelled_entities = one(
        f"SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {{ ?s <{RDFS_LABEL}> ?o FILTER(STRSTARTS(STR(?s), '{WD}Q')) }}"
    )
    report.typed_entities = one(f"SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {{ ?s <{WDT}P31> ?o }}")

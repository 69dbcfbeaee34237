"""The schema index: per-property domain and range with their provenance, and the class hierarchy.

The index crosses process boundaries (built by ``saga index build``, loaded by the tools,
shown to the model), so it is a pydantic model persisted as versioned JSON. Sets are
written sorted so that the same graph always gives the same file.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, PrivateAttr, ValidationError

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.private_files import write_private
from saga_kgqa.schema.compatibility import (
    CompatibilityMode,
    ConstraintRelation,
    SchemaSource,
    Verdict,
    check_relation_constraint,
)
from saga_kgqa.schema.hierarchy import ClassHierarchy
from saga_kgqa.schema.vocab import DEFAULT_SUBCLASS_PREDICATES, DEFAULT_TYPE_PREDICATES

#: Version of the JSON layout written by :meth:`SchemaIndex.save`; bump on incompatible change.
FORMAT_VERSION = 1

IriSet = Annotated[frozenset[str], PlainSerializer(sorted, return_type=list[str])]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class SchemaIndexVersionError(ConfigurationError):
    """A schema index file was written in another format version; rebuild it.

    Attributes:
        found: The version in the file (``None`` when it has none).
        expected: The version this code reads.
    """

    def __init__(self, path: Path, found: object, expected: int) -> None:
        super().__init__(
            f"schema index {path} has format_version {found!r}, this saga-kgqa reads version {expected}; "
            "rebuild it with `saga index build`"
        )
        self.found = found
        self.expected = expected


class TypeCount(BaseModel):
    """How many sampled values carried one type."""

    model_config = _FROZEN

    type_iri: str
    count: int = Field(ge=0)


class ClassUsage(BaseModel):
    """How many sampled instances of one class use a property (on the given side)."""

    model_config = _FROZEN

    type_iri: str
    instances_sampled: int = Field(ge=0)
    instances_using: int = Field(ge=0)


class SideEvidence(BaseModel):
    """Observed types of one side (subjects or objects) of a property, from bounded samples.

    Attributes:
        sampled: Distinct values of the property sampled.
        untyped: Sampled resources with no type at all.
        literals: Sampled values that were literals (object side only).
        counts: The most frequent types among the sampled values (literal datatypes
            included), most frequent first.
        class_usage: Classes whose sampled instances use the property, from the
            class-stratified sample (covers rare classes the property sample missed).
    """

    model_config = _FROZEN

    sampled: int = Field(default=0, ge=0)
    untyped: int = Field(default=0, ge=0)
    literals: int = Field(default=0, ge=0)
    counts: tuple[TypeCount, ...] = ()
    class_usage: tuple[ClassUsage, ...] = ()


class PropertySchema(BaseModel):
    """What the index knows about one property.

    Attributes:
        iri: The property IRI.
        label: Preferred label, if any.
        description: Short description, if any.
        datatype: Datatype of literal values (an XSD IRI), or a dialect's value type
            (for example a Wikibase datatype IRI); ``None`` when unknown or entity-valued.
        domain: Classes a subject must belong to (a union: any one suffices).
        range: Classes or datatypes an object must belong to (a union).
        domain_source: Where the domain came from.
        range_source: Where the range came from.
        domain_evidence: Sampled subject types behind an induced or surveyed domain.
        range_evidence: Sampled object types behind an induced or surveyed range.
        domain_origins: Names of the sources behind the domain (``wikidata:P2302``,
            ``yago45_schema``, ``codex-m``, ...), beyond the kind in ``domain_source``.
        range_origins: Names of the sources behind the range.
        domain_relation: How a subject must relate to the domain classes (Wikidata's
            P2309: instance of, subclass of, or either).
        range_relation: How an object must relate to the range classes.
        inverse: The property that links the same pair the other way, if the source
            declares one (Freebase ``reverse_properties``).
    """

    model_config = _FROZEN

    iri: str
    label: str | None = None
    description: str | None = None
    datatype: str | None = None
    domain: IriSet = frozenset()
    range: IriSet = frozenset()
    domain_source: SchemaSource = "none"
    range_source: SchemaSource = "none"
    domain_evidence: SideEvidence | None = None
    range_evidence: SideEvidence | None = None
    domain_origins: tuple[str, ...] = ()
    range_origins: tuple[str, ...] = ()
    domain_relation: ConstraintRelation = "instance"
    range_relation: ConstraintRelation = "instance"
    inverse: str | None = None


class ClassInfo(BaseModel):
    """One class of the hierarchy.

    Attributes:
        iri: The class IRI.
        label: Preferred label, if any.
        description: Short description, if any.
        parents: Direct superclasses.
        origins: Names of the sources behind ``parents`` (``kgtk-p279``, ``yago45_schema``, ...);
            empty for a formal schema read from the graph itself.
    """

    model_config = _FROZEN

    iri: str
    label: str | None = None
    description: str | None = None
    parents: IriSet = frozenset()
    origins: tuple[str, ...] = ()


class BuildSettings(BaseModel):
    """The settings an index was built with, kept in the file for reproducibility."""

    model_config = _FROZEN

    induce: bool = False
    stratify: bool = False
    sample_size: int = 0
    support: float = 0.0
    min_sample: int = 0


#: Domain sources the coverage ablation masks: declared constraints. The paper masks Wikidata's P2302
#: constraints ("formal" here); offline, curated domains (YAGO shapes, Text2KGBench ontologies) stand in
#: for them. Induced domains come from the data itself and are never masked.
MASKABLE_DOMAIN_SOURCES: tuple[SchemaSource, ...] = ("formal", "curated")


class CoverageMask(BaseModel):
    """Which part of the declared domains a masked index kept (the paper's Table 6 ablation).

    Attributes:
        fraction: The coverage level asked for.
        seed: The seed of the shuffle.
        kept: Declared domains kept.
        total: Declared domains before masking.
        by_source: Declared domains before masking, per source (``formal``, ``curated``).
    """

    model_config = _FROZEN

    fraction: float = Field(ge=0.0, le=1.0)
    seed: int
    kept: int
    total: int
    by_source: dict[str, int] = Field(default_factory=dict)

    def describe(self) -> str:
        """One line for reports: ``12 of 48 declared domains kept (formal 48)``."""
        sources = ", ".join(f"{source} {count}" for source, count in sorted(self.by_source.items()))
        return f"{self.kept} of {self.total} declared domains kept" + (f" ({sources})" if sources else "")


class SchemaIndex(BaseModel):
    """Per-property domain and range with provenance, plus the class hierarchy.

    The ancestor closure of the hierarchy is computed on first use and cached; the class
    table is fixed at construction, so derived indexes that only change properties (see
    :meth:`with_coverage`) reuse it.
    """

    model_config = _FROZEN

    format_version: int = FORMAT_VERSION
    endpoint_id: str = ""
    type_predicates: tuple[str, ...] = DEFAULT_TYPE_PREDICATES
    subclass_predicates: tuple[str, ...] = DEFAULT_SUBCLASS_PREDICATES
    properties: dict[str, PropertySchema] = Field(default_factory=dict)
    classes: dict[str, ClassInfo] = Field(default_factory=dict)
    settings: BuildSettings = Field(default_factory=BuildSettings)
    coverage: CoverageMask | None = None
    notes: tuple[str, ...] = ()

    _hierarchy: ClassHierarchy | None = PrivateAttr(default=None)
    _placed: frozenset[str] | None = PrivateAttr(default=None)
    _prominence: dict[str, int] | None = PrivateAttr(default=None)
    _closed: bool | None = PrivateAttr(default=None)

    def __eq__(self, other: object) -> bool:
        # Compare the data only: pydantic would also compare the cached hierarchy.
        if not isinstance(other, SchemaIndex):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # dict fields: an index is not hashable

    @property
    def hierarchy(self) -> ClassHierarchy:
        """The class hierarchy with its ancestor closure (computed once)."""
        if self._hierarchy is None:
            self._hierarchy = ClassHierarchy({iri: info.parents for iri, info in self.classes.items()})
        return self._hierarchy

    def placed_classes(self) -> frozenset[str]:
        """Classes whose place in the hierarchy the index knows something about (computed once).

        A class is placed when the class table has it, or a property's domain, range or
        evidence names it. A type outside this set (a rare Wikidata class with no P279
        offline) may well be a subclass of a domain it seems to conflict with.
        """
        if self._placed is None:
            placed = set(self.classes)
            for entry in self.properties.values():
                placed |= entry.domain | entry.range
                for evidence in (entry.domain_evidence, entry.range_evidence):
                    if evidence is not None:
                        placed.update(count.type_iri for count in evidence.counts)
            self._placed = frozenset(placed)
        return self._placed

    def is_closed(self) -> bool:
        """True when the schema declares itself closed: a flat formal ontology (computed once).

        A schema is read as closed when it has classes, no class has a superclass, and every
        property with a domain has a formal one (nothing induced or curated). That is the
        shape of a relational export such as Spider4SPARQL's: one class per table, every row
        typed with exactly its table, so the classes are disjoint by construction and a class
        with no superclass really has none. In any other schema a class without a recorded
        superclass has an *unknown* ancestry (CK25 never says Supplier ⊑ Agent), and lookup
        keeps what its domain would hide.
        """
        if self._closed is None:
            flat = bool(self.classes) and not any(info.parents for info in self.classes.values())
            constrained = [entry for entry in self.properties.values() if entry.domain]
            self._closed = flat and bool(constrained) and all(e.domain_source == "formal" for e in constrained)
        return self._closed

    def class_prominence(self, iri: str) -> int:
        """How many properties name the class in their domain or range (counts computed once).

        A proxy for how general a class is when no hierarchy says so: "country" is in
        the range of many properties, "island nation" of few, so a long range is best
        represented by its most prominent classes.
        """
        if self._prominence is None:
            counts: dict[str, int] = {}
            for entry in self.properties.values():
                for cls in entry.domain | entry.range:
                    counts[cls] = counts.get(cls, 0) + 1
            self._prominence = counts
        return self._prominence.get(iri, 0)

    def property_schema(self, iri: str) -> PropertySchema | None:
        """Return the entry of a property, or ``None`` when the index has none."""
        return self.properties.get(iri)

    def compatibility(
        self,
        entity_types: Iterable[str],
        property_iri: str,
        *,
        mode: CompatibilityMode = "subclass",
        superclasses: Iterable[str] | None = None,
    ) -> Verdict:
        """Check whether an entity (or variable) with these types may be the subject of a property.

        Args:
            entity_types: The known types of the subject.
            property_iri: The property.
            mode: ``subclass`` (subclass-aware, default) or ``exact`` (the paper's intersection).
            superclasses: The subject's own superclasses (Wikidata P279), ``None`` when not
                known; they matter only for a domain whose relation is ``subclass`` or
                ``instance_or_subclass`` (see :func:`~saga_kgqa.schema.compatibility.check_relation_constraint`).

        Returns:
            ``keep``, ``drop`` or ``unknown`` (missing domain or types: the caller keeps it).
        """
        return self._side_verdict("domain", entity_types, property_iri, mode, superclasses)

    def range_compatibility(
        self,
        value_types: Iterable[str],
        property_iri: str,
        *,
        mode: CompatibilityMode = "subclass",
        superclasses: Iterable[str] | None = None,
    ) -> Verdict:
        """Check whether a value with these types may be the object of a property.

        For a literal value pass its datatype (see :func:`saga_kgqa.schema.vocab.literal_type`);
        the XSD derivation tree is built into the hierarchy, and a literal never satisfies a
        range made only of classes. ``superclasses`` are the value's own superclasses, as
        in :meth:`compatibility`.
        """
        return self._side_verdict("range", value_types, property_iri, mode, superclasses)

    def _side_verdict(
        self,
        side: Literal["domain", "range"],
        types: Iterable[str],
        property_iri: str,
        mode: CompatibilityMode,
        superclasses: Iterable[str] | None,
    ) -> Verdict:
        entry = self.properties.get(property_iri)
        if entry is None:
            return Verdict(decision="unknown", reason="the property is not in the schema index", basis="no_schema")
        if side == "domain":
            constraint, relation, source = entry.domain, entry.domain_relation, entry.domain_source
        else:
            constraint, relation, source = entry.range, entry.range_relation, entry.range_source
        return check_relation_constraint(
            types, superclasses, constraint, self.hierarchy, relation=relation, source=source, side=side, mode=mode
        )

    def with_coverage(self, fraction: float, seed: int) -> SchemaIndex:
        """Return a copy keeping a seeded fraction of the declared domains; the others become unknown.

        Declared domains are those of :data:`MASKABLE_DOMAIN_SOURCES` (formal constraints, and
        the curated domains that stand in for them offline). They are shuffled once with
        ``seed`` and the first ``round(fraction * n)`` are kept, so for one seed the kept sets
        are nested as the fraction grows, and the same seed always keeps the same properties.

        Raises:
            ConfigurationError: ``fraction`` is outside [0, 1], or it is below 1 and the index
                has no declared domain to mask (the level would silently run on the full schema).
        """
        if not 0.0 <= fraction <= 1.0:
            raise ConfigurationError(f"schema coverage must be within [0, 1], got {fraction}")
        declared = sorted(iri for iri, p in self.properties.items() if p.domain_source in MASKABLE_DOMAIN_SOURCES)
        if fraction < 1.0 and not declared:
            sources = Counter(p.domain_source for p in self.properties.values() if p.domain)
            found = ", ".join(f"{source} {count}" for source, count in sorted(sources.items())) or "none"
            raise ConfigurationError(
                f"schema coverage {fraction:g} has nothing to mask: the index has no formal or curated domain "
                f"(domains by source: {found}); use an index with declared domains, e.g. "
                "`saga index build --endpoint …` for Wikidata's P2302 constraints or a graph with an RDFS/OWL ontology"
            )
        random.Random(seed).shuffle(declared)  # noqa: S311 - a reproducible ablation mask, not security
        kept = round(fraction * len(declared))
        masked = set(declared[kept:])
        properties = {
            iri: (p.model_copy(update={"domain": frozenset(), "domain_source": "none"}) if iri in masked else p)
            for iri, p in self.properties.items()
        }
        by_source = Counter[str](self.properties[iri].domain_source for iri in declared)
        mask = CoverageMask(fraction=fraction, seed=seed, kept=kept, total=len(declared), by_source=dict(by_source))
        return self.model_copy(update={"properties": properties, "coverage": mask})

    def save(self, path: Path) -> None:
        """Write the index as JSON, atomically (a reader never sees a half-written file)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        write_private(path, self.model_dump_json(indent=1))

    @classmethod
    def load(cls, path: Path) -> SchemaIndex:
        """Read an index written by :meth:`save`.

        Raises:
            SchemaIndexVersionError: The file has another ``format_version``.
            ConfigurationError: The file is missing or is not a schema index.
        """
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigurationError(f"schema index not found: {path}") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigurationError(f"cannot read schema index {path}: {exc}") from exc
        if not isinstance(data, dict):
            raise ConfigurationError(f"{path} is not a schema index (top level is not an object)")
        found = data.get("format_version")
        if type(found) is not int or found != FORMAT_VERSION:
            raise SchemaIndexVersionError(path, found, FORMAT_VERSION)
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ConfigurationError(f"{path} is not a valid schema index: {exc}") from exc

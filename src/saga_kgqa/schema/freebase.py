"""The Freebase schema index from GrailQA's ontology files (``grailqa_ontology``), as SAGA loads it.

* ``fb_roles``: ``domain_type relation range_type`` per line, Freebase's own domain and
  range of every relation (source ``formal``, origin ``fb_roles``);
* ``fb_types``: ``subtype meta.subclassOf supertype`` (some lines end in `` .``), the
  class hierarchy;
* ``reverse_properties``: ``property<TAB>reverse``, stored as each property's inverse.

Every id becomes ``http://rdf.freebase.com/ns/<dotted.id>``. Literal value types become
XSD ranges, because values in a Freebase RDF store are typed literals (``type.int`` is
``xsd:integer``, ``type.datetime`` is one of the XSD date types); the Freebase value type
itself is kept as the property's datatype. ``type.object`` admits every object, so it
constrains nothing. Freebase has no labels for schema ids here: the label is the id's
last segment with spaces (``film.film.directed_by`` -> ``directed by``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.schema.model import ClassInfo, PropertySchema, SchemaIndex
from saga_kgqa.schema.vocab import FREEBASE_NS, RDF_LANG_STRING, XSD, SchemaVocabulary

ONTOLOGY_DIR = "grailqa_ontology"
ROLES_FILE = "fb_roles"
TYPES_FILE = "fb_types"
REVERSE_FILE = "reverse_properties"
ROLES_ORIGIN = "fb_roles"
_SUBCLASS_MARKER = "meta.subclassOf"
_UNIVERSAL_TYPE = "type.object"

#: XSD datatypes of the literals of each Freebase value type.
LITERAL_RANGES: dict[str, frozenset[str]] = {
    "type.int": frozenset({XSD + "integer"}),
    "type.float": frozenset({XSD + "float", XSD + "double", XSD + "decimal"}),
    "type.boolean": frozenset({XSD + "boolean"}),
    "type.datetime": frozenset({XSD + "dateTime", XSD + "date", XSD + "gYear", XSD + "gYearMonth"}),
    "type.text": frozenset({RDF_LANG_STRING, XSD + "string"}),
    "type.rawstring": frozenset({XSD + "string"}),
}
#: Value types whose literals are written in several ways across dumps: no range, only the datatype.
UNCHECKED_VALUE_TYPES = frozenset({"type.uri", "type.enumeration", "type.key", "type.id"})


def freebase_iri(dotted_id: str) -> str:
    """Return the IRI of a Freebase id (``film.film`` -> ``http://rdf.freebase.com/ns/film.film``)."""
    return FREEBASE_NS + dotted_id


def build_freebase_index(directory: Path) -> SchemaIndex:
    """Read ``fb_roles``, ``fb_types`` and ``reverse_properties`` into a schema index.

    Args:
        directory: The ``grailqa_ontology`` directory.

    Returns:
        The index; ``notes`` lists malformed lines that were skipped.

    Raises:
        ConfigurationError: A file is missing or unreadable.
    """
    notes: list[str] = []
    domains: dict[str, set[str]] = defaultdict(set)
    ranges: dict[str, set[str]] = defaultdict(set)
    for number, fields in _lines(directory / ROLES_FILE):
        if len(fields) != 3:
            notes.append(f"{ROLES_FILE}:{number}: skipped, {len(fields)} fields instead of 3")
            continue
        domain, relation, range_ = fields
        domains[relation].add(domain)
        ranges[relation].add(range_)
    parents: dict[str, set[str]] = defaultdict(set)
    for number, fields in _lines(directory / TYPES_FILE):
        if len(fields) != 3 or fields[1] != _SUBCLASS_MARKER:
            notes.append(f"{TYPES_FILE}:{number}: skipped, not 'subtype {_SUBCLASS_MARKER} supertype'")
            continue
        parents[freebase_iri(fields[0])].add(freebase_iri(fields[2]))
    inverses: dict[str, str] = {}
    for number, fields in _lines(directory / REVERSE_FILE):
        if len(fields) != 2:
            notes.append(f"{REVERSE_FILE}:{number}: skipped, {len(fields)} fields instead of 2")
            continue
        inverses.setdefault(fields[0], fields[1])
        inverses.setdefault(fields[1], fields[0])
    properties = {
        freebase_iri(relation): _entry(relation, domains.get(relation, set()), ranges.get(relation, set()), inverses)
        for relation in sorted(set(domains) | set(inverses))
    }
    vocabulary = SchemaVocabulary.freebase()
    return SchemaIndex(
        endpoint_id="offline:freebase",
        type_predicates=vocabulary.type_predicates,
        subclass_predicates=vocabulary.subclass_predicates,
        properties=properties,
        classes=_class_table(properties, parents),
        notes=tuple(notes),
    )


def _entry(relation: str, domains: set[str], ranges: set[str], inverses: dict[str, str]) -> PropertySchema:
    domain = frozenset(freebase_iri(d) for d in domains if d != _UNIVERSAL_TYPE)
    if _UNIVERSAL_TYPE in domains:
        domain = frozenset()
    range_: set[str] = set()
    value_types = sorted(r for r in ranges if r in LITERAL_RANGES or r in UNCHECKED_VALUE_TYPES)
    unconstrained = _UNIVERSAL_TYPE in ranges or any(r in UNCHECKED_VALUE_TYPES for r in ranges)
    for r in ranges:
        range_ |= LITERAL_RANGES.get(r, frozenset() if r in UNCHECKED_VALUE_TYPES else {freebase_iri(r)})
    if unconstrained:
        range_ = set()
    inverse = inverses.get(relation)
    return PropertySchema(
        iri=freebase_iri(relation),
        label=relation.rpartition(".")[2].replace("_", " "),
        datatype=freebase_iri(value_types[0]) if len(value_types) == 1 else None,
        domain=domain,
        range=frozenset(range_),
        domain_source="formal" if domain else "none",
        range_source="formal" if range_ else "none",
        domain_origins=(ROLES_ORIGIN,) if domain else (),
        range_origins=(ROLES_ORIGIN,) if range_ else (),
        inverse=freebase_iri(inverse) if inverse else None,
    )


def _class_table(properties: dict[str, PropertySchema], parents: dict[str, set[str]]) -> dict[str, ClassInfo]:
    names = set(parents) | {p for supers in parents.values() for p in supers}
    for entry in properties.values():
        names |= entry.domain | {r for r in entry.range if r.startswith(FREEBASE_NS)}
    return {
        name: ClassInfo(
            iri=name,
            label=name.removeprefix(FREEBASE_NS).rpartition(".")[2].replace("_", " "),
            parents=frozenset(parents.get(name, ())),
        )
        for name in sorted(names)
    }


def _lines(path: Path) -> Iterator[tuple[int, list[str]]]:
    """Yield the whitespace-separated fields of each non-empty line, without a final ``.``."""
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                fields = line.split()
                if fields and fields[-1] == ".":
                    fields.pop()
                if fields:
                    yield number, fields
    except FileNotFoundError:
        raise ConfigurationError(f"Freebase ontology file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"cannot read {path}: {exc}") from exc

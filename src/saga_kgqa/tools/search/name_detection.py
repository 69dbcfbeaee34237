"""Which literal-valued properties name a resource, read from the graph itself rather than from their local names.

Graphs no one tuned the tools for name their resources in ``concert_name``, ``song_name``,
``first_name`` + ``last_name``, and hold the values a question quotes ("France", "Week 1")
in categorical properties such as ``nationality``; ontologies keep a term's other names in
``oboInOwl:hasExactSynonym`` or ``skos:altLabel``. The candidates (:func:`name_candidates`) are
the literal-valued properties of the schema and every predicate holding a literal in a bounded
sample of the data's triples (a survey that saw no class still leaves the names findable,
issue 42), up to :attr:`DetectionLimits.properties`. Each is sampled once, bounded, and its
values decide its kind:

* ``name``: short strings, distinct per subject, language-tagged, or a local name that says
  "name", "title", "label" or "synonym" (``concert_name``, ``firstName``, ``hasExactSynonym``);
* ``text``: short strings that repeat (``nationality``, ``theme``): searchable, ranked after names;
* ``identifier``: codes and numbers kept as strings (``"32"``, ``A1``): a separate kind that
  never outranks a name match on a name query;
* ``None``: typed numbers and dates, long texts (descriptions), resources.

Pairs such as ``first_name`` + ``last_name`` on the same subjects make compound names.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from saga_kgqa.errors import SagaError
from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.schema.vocab import RDF_LANG_STRING, XSD_STRING, is_datatype, local_name
from saga_kgqa.tools.graph_reads import Reads
from saga_kgqa.tools.search.identifier_forms import is_identifier_property, looks_like_identifier
from saga_kgqa.tools.search.label_index import NameEntry

NameKind = Literal["name", "text", "identifier"]

_NAME_WORDS = frozenset(
    {
        "name",
        "names",
        "label",
        "title",
        "alias",
        "aliases",
        "fullname",
        "nickname",
        "caption",
        "synonym",
        "synonyms",
        "abbreviation",
        "acronym",
    }
)
_FIRST = re.compile(r"^(first|given|fore|f)_?name$|^firstname$|^givenname$|^fname$")
_LAST = re.compile(r"^(last|family|sur|l)_?name$|^surname$|^lastname$|^familyname$|^lname$")
_WORD_SPLIT = re.compile(r"[^a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
#: Longest median value of a name or text property (longer ones are descriptions).
MAX_MEDIAN_CHARS = 80
#: Most words in the median value of a name ("Air Handling Unit", "Museum of Modern Art").
MAX_NAME_WORDS = 6
_STRING_TYPES = frozenset({None, XSD_STRING, RDF_LANG_STRING})


@dataclass(frozen=True, slots=True)
class DetectionLimits:
    """Bounds of the detection: properties sampled and values read per property."""

    properties: int = 300
    values: int = 100
    compound_names: int = 200_000
    #: Triples read to find the predicates holding literals that the schema does not list.
    triples: int = 200_000


@dataclass(frozen=True, slots=True)
class DetectedNames:
    """Name-bearing properties found in the data, by kind, and compound-name pairs (first, last)."""

    names: tuple[str, ...] = ()
    texts: tuple[str, ...] = ()
    identifiers: tuple[str, ...] = ()
    compounds: tuple[tuple[str, str], ...] = ()

    @property
    def predicates(self) -> tuple[str, ...]:
        """Every detected predicate, names first."""
        return (*self.names, *self.texts, *self.identifiers)


def words_of(prop: str) -> list[str]:
    """The words of a property's local name (``concert_name`` and ``concertName`` → concert, name)."""
    return [w for w in _WORD_SPLIT.split(_CAMEL.sub("_", local_name(prop)).casefold()) if w]


def says_name(prop: str) -> bool:
    """Whether the local name says it is a name (``song_name``, ``Title``, ``prefLabel``)."""
    words = words_of(prop)
    joined = "".join(words)
    return bool(words) and (words[-1] in _NAME_WORDS or joined in _NAME_WORDS or joined in ("fname", "lname"))


def classify_values(prop: str, values: Sequence[Term], subjects: Sequence[str]) -> NameKind | None:
    """The kind of a property from a sample of its values and their subjects (see the module docstring)."""
    if not values:
        return None
    literals = [v for v in values if v.kind == "literal"]
    if len(literals) < 0.8 * len(values):
        return None
    strings = [v for v in literals if v.datatype in _STRING_TYPES]
    if len(strings) < 0.8 * len(literals):
        return None
    texts = [v.value for v in strings]
    if is_identifier_property(prop) or _share(texts, _is_number) >= 0.5 or all(map(looks_like_identifier, texts)):
        return "identifier"
    if statistics.median(len(t) for t in texts) > MAX_MEDIAN_CHARS:
        return None
    if statistics.median(len(t.split()) for t in texts) > MAX_NAME_WORDS:
        return "text"  # sentences (descriptions, notes): searchable, never ranked as names
    tagged = sum(1 for v in strings if v.lang) >= 0.5 * len(strings)
    distinct = len(set(texts)) >= 0.9 * len(texts) and len(set(subjects)) >= 0.9 * len(subjects)
    return "name" if says_name(prop) or tagged or (distinct and len(texts) >= 3) else "text"


def _share(texts: Sequence[str], test: Callable[[str], bool]) -> float:
    return sum(1 for t in texts if test(t)) / len(texts)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def detect_names(
    reads: Reads,
    schema: SchemaIndex,
    *,
    known: Sequence[str] = (),
    skip: Sequence[str] = (),
    limits: DetectionLimits | None = None,
) -> DetectedNames:
    """Sample each literal-valued schema property once and sort it by kind (bounded; a failed read is skipped).

    Args:
        reads: The query helper (its notes record a skipped property).
        schema: The properties to consider: those whose range is literal or unknown.
        known: Name predicates already chosen (the dialect's curated ones): kept first, not sampled.
        skip: Predicates never indexed (type predicates).
        limits: Properties sampled and values read.
    """
    limits = limits or DetectionLimits()
    candidates = name_candidates(reads, schema, taken=(*known, *skip), limits=limits)
    kinds: dict[NameKind, list[str]] = {"name": [], "text": [], "identifier": []}
    for prop in candidates:
        try:
            rows = reads.select(
                f"SELECT ?s ?o WHERE {{ ?s {iri(prop)} ?o FILTER(isIRI(?s)) }}", limit=limits.values
            ).rows
        except SagaError:
            reads.notes.append(f"names via {local_name(prop)}: not sampled; search may miss them")
            continue
        kind = classify_values(prop, [r["o"] for r in rows if "o" in r], [r["s"].value for r in rows if "s" in r])
        if kind is not None:
            kinds[kind].append(prop)
    names = [*known, *kinds["name"]]
    return DetectedNames(
        names=tuple(kinds["name"]),
        texts=tuple(kinds["text"]),
        identifiers=tuple(kinds["identifier"]),
        compounds=compound_pairs(names),
    )


def name_candidates(
    reads: Reads, schema: SchemaIndex, *, taken: Sequence[str] = (), limits: DetectionLimits | None = None
) -> list[str]:
    """The properties the detection samples: the schema's literal-valued ones, then those found in the data.

    The data's are the predicates holding a literal among the first :attr:`DetectionLimits.triples`
    triples (one bounded read): a property no surveyed class showed (an ontology's
    ``oboInOwl:hasExactSynonym`` when the survey found no class, a predicate of untyped subjects)
    is still classified. A failed read is noted and the schema's stand.
    """
    limits = limits or DetectionLimits()
    skipped = set(taken)
    found = {
        prop: None
        for prop, entry in sorted(schema.properties.items())
        if prop not in skipped and all(is_datatype(r) for r in entry.range)
    }
    try:
        rows = reads.select(
            f"SELECT DISTINCT ?p WHERE {{ {{ SELECT ?p ?o WHERE {{ ?s ?p ?o }} LIMIT {limits.triples} }} "
            "FILTER(isLiteral(?o)) }",
            limit=limits.properties,
        ).rows
    except SagaError:
        reads.notes.append("names: the data's literal-valued predicates were not read; the schema's were sampled")
        rows = []
    in_data = sorted(r["p"].value for r in rows if "p" in r)
    found.update((prop, None) for prop in in_data if prop not in skipped and prop not in schema.properties)
    return list(found)[: limits.properties]


def compound_pairs(names: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """(first, last) name predicates of the same namespace (``first_name`` + ``last_name``, ``fname`` + ``lname``)."""
    firsts = [p for p in names if _FIRST.match("".join(words_of(p))) or _FIRST.match("_".join(words_of(p)))]
    lasts = [p for p in names if _LAST.match("".join(words_of(p))) or _LAST.match("_".join(words_of(p)))]
    return tuple(
        (first, last) for first in firsts for last in lasts if first.rsplit("/", 1)[0] == last.rsplit("/", 1)[0]
    )


def read_compound_names(reads: Reads, pairs: Sequence[tuple[str, str]], *, max_names: int = 200_000) -> list[NameEntry]:
    """Compound names ("First Last") of the subjects holding both parts (source: the last-name predicate)."""
    entries: list[NameEntry] = []
    for first, last in pairs:
        try:
            rows = reads.select(
                f"SELECT ?s ?a ?b WHERE {{ ?s {iri(first)} ?a ; {iri(last)} ?b "
                f"FILTER(isIRI(?s) && {reads.text_filter('a')} && {reads.text_filter('b')}) }}",
                limit=max_names,
                what=f"compound names via {local_name(first)} + {local_name(last)}",
            ).rows
        except SagaError:
            reads.notes.append(f"compound names via {local_name(first)} + {local_name(last)}: not read")
            continue
        entries.extend(NameEntry(r["s"].value, f"{r['a'].value} {r['b'].value}", last) for r in rows)
    return entries

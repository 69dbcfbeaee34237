"""Catalog operations (AutoSchema's ``list_databases``, ``list_categories``, ``find_databases``).

Records keep the operator's title and description; a source without them gets ones
derived from its survey's classes and properties (surveying it if not cached, so listing
a catalog of sources without descriptions costs their surveys once). ``find`` ranks
sources by the query's words in the title, description, categories and surveyed class
and property names. With a handful of sources a prompt shows :func:`catalog_text`
instead (TogoMCP v2 measured fewer calls that way); with many, the agent gets ``find``.
"""

from __future__ import annotations

import logging
import re
from collections import Counter

from pydantic import BaseModel, ConfigDict

from saga_kgqa.errors import SagaError
from saga_kgqa.schema.survey_model import SourceSurvey
from saga_kgqa.schema.vocab import local_name
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.sources.summary import RESULT_CHARS, derived_description, derived_title
from saga_kgqa.text_safety import cap_block, graph_text

_LOG = logging.getLogger(__name__)
_WORD = re.compile(r"[a-z0-9]+")
# Words a question shares with every catalog: they must not rank sources.
_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "the",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whose",
        "with",
    ]
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


class SourceEntry(BaseModel):
    """One source as a catalog lists it (never its URL or path)."""

    model_config = ConfigDict(frozen=True)

    name: str
    title: str
    description: str
    categories: tuple[str, ...] = ()
    derived: bool = False
    classes: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()


class CategoryCount(BaseModel):
    """A category and the sources in it."""

    model_config = ConfigDict(frozen=True)

    category: str
    sources: tuple[str, ...]


class FoundSource(BaseModel):
    """A source matching a ``find`` query, with its score."""

    model_config = ConfigDict(frozen=True)

    entry: SourceEntry
    score: float


def list_sources(sources: SourceSet, *, survey_missing: bool = True) -> list[SourceEntry]:
    """Every configured source, with a derived title and description where the record has none.

    Args:
        sources: The operator's sources.
        survey_missing: Survey sources that lack a title or description (else leave them blank).
    """
    return [_entry(sources, name, survey_missing) for name in sources.names]


def list_categories(sources: SourceSet) -> list[CategoryCount]:
    """The categories of the catalog's records, each with its sources."""
    members: dict[str, list[str]] = {}
    for name in sources.names:
        for category in sources.catalog.sources[name].categories:
            members.setdefault(category, []).append(name)
    return [CategoryCount(category=c, sources=tuple(sorted(s))) for c, s in sorted(members.items())]


def find_sources(sources: SourceSet, text: str, *, limit: int = 5) -> list[FoundSource]:
    """Sources ranked by how many of the query's words their catalog text and survey names contain."""
    wanted = Counter(w for w in _words(text) if w not in _STOP_WORDS)
    found = []
    for entry in list_sources(sources):
        fields = (
            (3.0, _words(entry.title)),
            (2.0, [w for c in entry.categories for w in _words(c)]),
            (1.5, [w for c in entry.classes for w in _words(c)]),
            (1.0, _words(entry.description) + [w for p in entry.properties for w in _words(p)]),
        )
        score = sum(weight * sum(1 for w in wanted if _has(words, w)) for weight, words in fields)
        if score > 0:
            found.append(FoundSource(entry=entry, score=score))
    found.sort(key=lambda f: (-f.score, f.entry.name))
    return found[:limit]


def catalog_text(entries: list[SourceEntry], max_chars: int = RESULT_CHARS) -> str:
    """The compact catalog a prompt shows when there are few sources."""
    lines = []
    for e in entries:
        categories = f" [{', '.join(e.categories)}]" if e.categories else ""
        lines.append(f"- {e.name}: {graph_text(e.title)}{categories}. {graph_text(e.description, 300)}")
    return cap_block("\n".join(lines), max_chars)


def _entry(sources: SourceSet, name: str, survey_missing: bool) -> SourceEntry:
    record = sources.catalog.sources[name]
    classes: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()
    title, description, derived = record.title, record.description, False
    if survey_missing or not (title and description):
        survey: SourceSurvey | None
        try:
            if survey_missing:
                survey = sources.get(name).survey()
            else:  # a prompt lists every source: only a survey already held is used, none is started
                opened = sources.opened(name)
                survey = opened.surveyed() if opened is not None else None
        except Exception as exc:
            if not isinstance(exc, SagaError):
                _LOG.warning("listing source %s failed", name, exc_info=True)
            return SourceEntry(
                name=name,
                title=title or name,
                description=description or f"not surveyed ({type(exc).__name__})",
                categories=record.categories,
            )
        if survey is None:
            return SourceEntry(
                name=name,
                title=title or name,
                description=description or f"not surveyed yet: summary({name}) describes it",
                categories=record.categories,
            )
        classes = tuple(local_name(c.iri) for c in survey.classes)
        properties = tuple(dict.fromkeys(local_name(p.iri) for c in survey.classes for p in c.properties))
        if not title:
            title, derived = derived_title(survey), True
        if not description:
            description, derived = derived_description(survey), True
    return SourceEntry(
        name=name,
        title=title,
        description=description,
        categories=record.categories,
        derived=derived,
        classes=classes,
        properties=properties,
    )


def _words(text: str) -> list[str]:
    return _WORD.findall(_CAMEL.sub(" ", text).replace("_", " ").casefold())


def _has(words: list[str], wanted: str) -> bool:
    """A word matches itself and its plural or singular ("protein" finds "proteins")."""
    return any(w == wanted or w.rstrip("s") == wanted.rstrip("s") for w in words)

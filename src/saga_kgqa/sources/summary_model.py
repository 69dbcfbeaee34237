"""The records of a source summary (what :mod:`saga_kgqa.sources.summary` builds and its text renders).

They sit apart from the builder so that the renderer (:mod:`saga_kgqa.sources.summary_text`)
and the builder both import them, and neither imports the other.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class PropertyLine(BaseModel):
    """One predicate of a class, as the summary shows it."""

    model_config = ConfigDict(frozen=True)

    property: str
    used_by: int
    kinds: dict[str, int]
    types: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()


class ClassSummary(BaseModel):
    """One class of a source."""

    model_config = ConfigDict(frozen=True)

    id: str
    instances: int
    graphs: tuple[str, ...] = ()
    properties: tuple[PropertyLine, ...] = ()
    example_query: str | None = None
    example_rows: int = 0


class SourceSummary(BaseModel):
    """The summary of one source.

    Attributes:
        source: The source's name.
        title: The catalog's title, else one derived from the survey.
        description: The catalog's description, else one derived from the survey.
        declared_schema: Whether the type filter uses a curated schema index (else the survey's).
        built_at: When the survey was taken.
        graphs: The named-graph scope of the source's queries (empty: the default graph).
        named_graphs: The named graphs the source lists.
        classes: The surveyed classes.
        coverage: What the survey did not cover.
        ontology: An ontology's lines (terms, hierarchy depth, annotation and relation properties), if it is one.
        text: The capped observation for a model.
    """

    model_config = ConfigDict(frozen=True)

    source: str
    title: str
    description: str
    declared_schema: bool
    built_at: str
    graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()
    classes: tuple[ClassSummary, ...] = ()
    coverage: tuple[str, ...] = ()
    ontology: tuple[str, ...] = ()
    text: str = ""

"""Options shared by several ``saga`` commands, in one place so every ``--help`` says the same.

This module is imported by every command module at start-up, so it imports only typer, the
standard library and light project modules (no rdflib, pydantic, LangGraph): ``saga --help``
costs what typer costs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from saga_kgqa.cli.option_groups import OptionGroup
from saga_kgqa.config.context import DIALECT_ALIASES, DIALECT_NAMES, DialectName, EmbeddingRuntimeName, PatternRanking

#: The one phrase that lists the dialect choices in every command's ``--help``.
DIALECT_CHOICES = "generic (plain RDF; `rdf` is an alias), wikidata or freebase"
_DIALECT_METAVAR = "[" + "|".join(DIALECT_NAMES) + "]"


def dialect_name(value: str | None) -> DialectName | None:
    """Check a ``--dialect`` value and return its canonical name (``rdf`` → ``generic``).

    Raises:
        typer.BadParameter: Not a dialect name; the message lists the choices.
    """
    if value is None:
        return None
    name = DIALECT_ALIASES.get(value, value)
    for known in DIALECT_NAMES:
        if name == known:
            return known
    raise typer.BadParameter(f"{value!r} is not a dialect; choose {DIALECT_CHOICES}")


def dialect_option(purpose: str) -> Any:
    """A ``--dialect`` option: ``purpose`` says what it changes; the choices are the same everywhere.

    Annotate the parameter ``str | None`` (a ``Literal`` would make typer reject the alias
    before the callback maps it); the command receives the canonical name, and
    :func:`dialect_name` narrows it to :data:`~saga_kgqa.config.context.DialectName` for the type checker.
    """
    return typer.Option(
        "--dialect",
        metavar=_DIALECT_METAVAR,
        callback=dialect_name,
        help=f"Graph dialect: {DIALECT_CHOICES}. {purpose}",
    )


DataOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--data",
        "-d",
        help="RDF files to load (repeatable), or one store directory written by `saga load`. "
        "Default: the example graph shipped with saga-kgqa.",
    ),
]
EndpointOption = Annotated[
    str | None, typer.Option("--endpoint", "-e", help="URL of a remote SPARQL endpoint (instead of --data).")
]
ProfileOption = Annotated[
    str | None,
    typer.Option(help="Endpoint profile: generic, fuseki, embedded, wikidata, qlever, virtuoso."),
]
SchemaOption = Annotated[
    Path | None,
    typer.Option("--schema", help="Schema index written by `saga index build` (default: build it now)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the machine-readable result as JSON.")]
QueryArgument = Annotated[str, typer.Argument(help="The SPARQL query, or '-' to read it from standard input.")]
#: The agent's ``--schema`` (``saga ask``, ``saga eval run`` and ``ablate``).
RunSchemaOption = Annotated[
    Path | None, typer.Option("--schema", help="Schema index from `saga index build` (default: build it now).")
]
SourceCatalogOption = Annotated[
    Path | None, typer.Option("--catalog", help="The catalog file of --source (default: $SAGA_CATALOG).")
]
DataDirOption = Annotated[
    Path | None,
    typer.Option("--data-dir", help="Third-party data directory (default: $SAGA_DATA_DIR, else ../shared/data)."),
]

# MARS's switches, shared by `saga ask`, `saga eval run` and `saga eval ablate`: unset (None) options fall
# back to SAGA_MARS_* (and SAGA_PATTERN_RANKING, SAGA_EMBEDDING_RUNTIME), then to the context's defaults.
MARS_PANEL = "MARS switches (explicit > SAGA_<NAME> environment > default)"


def _mars(help_text: str) -> Any:
    return typer.Option(help=help_text, rich_help_panel=MARS_PANEL, show_default=False)


AnswerShapeOption = Annotated[
    bool | None,
    typer.Option(
        "--answer-shape/--no-answer-shape",
        help="Record the scored query: label columns that only show a returned entity dropped (default off).",
    ),
]
MarsTopNOption = Annotated[int | None, _mars("MARS: patterns shown per hop (default 20).")]
MarsHopLimitOption = Annotated[int | None, _mars("MARS: pattern expansions (default 5).")]
MarsExamplesOption = Annotated[bool | None, _mars("MARS: instances per pattern (default on).")]
MarsTypologyOption = Annotated[bool | None, _mars("MARS: domain and range per pattern (default on).")]
MarsVerificationOption = Annotated[bool | None, _mars("MARS: verify the executed query (default on).")]
MarsAugmentedQuestionOption = Annotated[
    bool | None, _mars("MARS: the model names expected entity types (default off).")
]
PatternRankingOption = Annotated[
    PatternRanking | None, _mars("MARS and patterns(): embedding, bm25, degree or random (default embedding).")
]
EmbeddingRuntimeOption = Annotated[
    EmbeddingRuntimeName | None,
    _mars("Embedding model: minilm, e5 or openai (SAGA_EMBEDDING_BASE_URL) (default minilm)."),
]


@dataclass(frozen=True)
class GraphOptions(OptionGroup):
    """The graph a command reads: ``--data`` files or store, or ``--endpoint`` with its ``--profile``."""

    data: DataOption = None
    endpoint: EndpointOption = None
    profile: ProfileOption = None


@dataclass(frozen=True)
class MarsOptions(OptionGroup):
    """MARS's switches; each field is named after the context field it sets."""

    mars_top_n: MarsTopNOption = None
    mars_hop_limit: MarsHopLimitOption = None
    mars_examples: MarsExamplesOption = None
    mars_typology: MarsTypologyOption = None
    mars_verification: MarsVerificationOption = None
    mars_augmented_question: MarsAugmentedQuestionOption = None
    pattern_ranking: PatternRankingOption = None
    embedding_runtime: EmbeddingRuntimeOption = None

    def switches(self) -> dict[str, Any]:
        """The options as context fields, ``None`` where unset (the environment or the default decides)."""
        return dataclasses.asdict(self)

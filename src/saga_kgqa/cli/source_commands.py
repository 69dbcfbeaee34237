"""``saga source …``: the operator's catalog and the live-grounding tools on named sources.

``list``, ``categories`` and ``find`` browse the catalog (``--catalog FILE``, else
``$SAGA_CATALOG``, else the environment's sources); ``survey`` builds (``--refresh``:
rebuilds) the bounded survey and prints its coverage; ``summary``, ``resolve``, ``expand``,
``bridge`` and ``join`` print exactly what a model reads (``--json``: the machine-readable result).
The grounding modules are imported inside each command, so ``import saga_kgqa.cli`` stays light.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from saga_kgqa.cli.groups import command_group
from saga_kgqa.cli.options import JsonOption
from saga_kgqa.cli.output import EXIT_REJECTED, fail, print_json, stderr
from saga_kgqa.errors import SagaError, ToolInputError

if TYPE_CHECKING:
    from saga_kgqa.sources.session import SourceSet

CatalogOption = Annotated[
    Path | None,
    typer.Option("--catalog", help="The operator's catalog file (TOML; default: $SAGA_CATALOG, else the environment)."),
]
SourceArgument = Annotated[str, typer.Argument(metavar="NAME", help="A source name from the catalog.")]
SurveyDirOption = Annotated[
    Path | None, typer.Option("--survey-dir", help="Cache of surveys and name indexes (default: $SAGA_SURVEY_DIR).")
]

source_app = command_group("Named sources: catalog, live survey, summary, entity resolution, expansion, bridging.")


@contextmanager
def opened_sources(catalog_file: Path | None, survey_dir: Path | None = None) -> Iterator[SourceSet]:
    """The catalog's sources, closed on exit (:func:`saga_kgqa.app.sources.opened_sources`).

    Raises:
        ConfigurationError: The catalog cannot be read.
    """
    from saga_kgqa.app.sources import opened_sources as app_opened_sources

    with app_opened_sources(catalog_file, survey_dir) as sources:
        yield sources


def _emit(call: Callable[[SourceSet], Any], catalog: Path | None, survey_dir: Path | None, as_json: bool) -> None:
    """Run one call on the sources and print its text (or JSON); typed errors exit with their status."""
    try:
        with opened_sources(catalog, survey_dir) as sources:
            result = call(sources)
    except ToolInputError as exc:
        stderr.print(f"error: {exc.message}", markup=False, highlight=False)
        raise typer.Exit(EXIT_REJECTED) from None
    except SagaError as exc:
        fail(exc)
    if as_json:
        print_json(result.model_dump(mode="json") if hasattr(result, "model_dump") else result)
    else:
        sys.stdout.write(str(getattr(result, "text", result)) + "\n")


@source_app.command("list")
def list_command(
    catalog: CatalogOption = None, survey_dir: SurveyDirOption = None, as_json: JsonOption = False
) -> None:
    """List the configured sources (titles and descriptions derived from a survey where the record has none)."""
    from saga_kgqa.sources.catalog_search import catalog_text, list_sources

    def call(sources: SourceSet) -> Any:
        entries = list_sources(sources)
        return [e.model_dump(mode="json") for e in entries] if as_json else catalog_text(entries, max_chars=100_000)

    _emit(call, catalog, survey_dir, as_json)


@source_app.command("categories")
def categories_command(catalog: CatalogOption = None, as_json: JsonOption = False) -> None:
    """List the catalog's categories with their sources."""
    from saga_kgqa.sources.catalog_search import list_categories

    def call(sources: SourceSet) -> Any:
        found = list_categories(sources)
        if as_json:
            return [c.model_dump(mode="json") for c in found]
        return "\n".join(f"{c.category}: {', '.join(c.sources)}" for c in found) or "no categories"

    _emit(call, catalog, None, as_json)


@source_app.command("find")
def find_command(
    text: Annotated[str, typer.Argument(help="Words to look for in titles, descriptions, classes and properties.")],
    catalog: CatalogOption = None,
    survey_dir: SurveyDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Rank sources by title, description, categories and surveyed class and property names."""
    from saga_kgqa.sources.catalog_search import catalog_text, find_sources

    def call(sources: SourceSet) -> Any:
        found = find_sources(sources, text)
        if as_json:
            return [f.model_dump(mode="json") for f in found]
        return catalog_text([f.entry for f in found]) if found else f"no source matches {text!r}"

    _emit(call, catalog, survey_dir, as_json)


@source_app.command("survey")
def survey_command(
    name: SourceArgument,
    refresh: Annotated[bool, typer.Option("--refresh", help="Rebuild the survey even when one is cached.")] = False,
    catalog: CatalogOption = None,
    survey_dir: SurveyDirOption = None,
    out: Annotated[Path | None, typer.Option("--out", help="Also write the surveyed schema index here.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Survey a source within the paper's bounds and print its coverage (cached; --refresh rebuilds)."""

    def call(sources: SourceSet) -> Any:
        survey = sources.get(name).survey(refresh=refresh)
        if out is not None:
            survey.index.save(out)
        if as_json:
            return survey
        lines = [f"source {survey.source}: surveyed {survey.built_at} in {survey.seconds:.1f} s"]
        lines.extend(f"  {line}" for line in survey.coverage())
        lines.append(f"  {len(survey.index.properties)} properties indexed, {len(survey.index.classes)} classes")
        return "\n".join(lines)

    _emit(call, catalog, survey_dir, as_json)


@source_app.command("summary")
def summary_command(
    name: SourceArgument, catalog: CatalogOption = None, survey_dir: SurveyDirOption = None, as_json: JsonOption = False
) -> None:
    """Show a source's classes, predicates with object kinds and types, examples, graphs and example queries."""
    from saga_kgqa.sources.summary import source_summary

    _emit(lambda sources: source_summary(sources, name), catalog, survey_dir, as_json)


@source_app.command("resolve")
def resolve_command(
    name: SourceArgument,
    text: Annotated[str, typer.Argument(help="A name or an identifier (P12345, GO:0008150).")],
    catalog: CatalogOption = None,
    survey_dir: SurveyDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Map a name or identifier to the source's IRIs (never blank nodes), each with its class and label."""
    from saga_kgqa.sources.resolution import render_resolution, resolve_entity

    def call(sources: SourceSet) -> Any:
        result = resolve_entity(sources, name, text)
        return result if as_json else render_resolution(result)

    _emit(call, catalog, survey_dir, as_json)


@source_app.command("expand")
def expand_command(
    name: SourceArgument,
    entity: Annotated[str, typer.Argument(help="Entity IRI: <http://…>, a prefixed name or http://….")],
    catalog: CatalogOption = None,
    survey_dir: SurveyDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show an entity's outgoing and incoming paths, one hop through intermediate nodes, type-filtered."""
    from saga_kgqa.sources.expansion import expand_entity

    _emit(lambda sources: expand_entity(sources, name, entity), catalog, survey_dir, as_json)


@source_app.command("bridge")
def bridge_command(
    left: Annotated[str, typer.Argument(metavar="LEFT", help="The source the question starts from.")],
    right: Annotated[str, typer.Argument(metavar="RIGHT", help="The source holding the rest of the answer.")],
    catalog: CatalogOption = None,
    survey_dir: SurveyDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Candidate joins between two sources (same IRIs, shared identifier values, shared properties) with plans."""
    from saga_kgqa.sources.bridging import bridge_sources

    _emit(lambda sources: bridge_sources(sources, left, right), catalog, survey_dir, as_json)


@source_app.command("join")
def join_command(
    left: Annotated[str, typer.Argument(metavar="LEFT", help="The source of query 1.")],
    first: Annotated[str, typer.Argument(metavar="QUERY1", help="A SELECT on LEFT naming the key (e.g. ?key).")],
    right: Annotated[str, typer.Argument(metavar="RIGHT", help="The source of query 2 (it holds the answer).")],
    second: Annotated[str, typer.Argument(metavar="QUERY2", help="A SELECT on RIGHT naming the same key.")],
    catalog: CatalogOption = None,
    survey_dir: SurveyDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Federated join: QUERY1's keys bound into QUERY2 in RIGHT's form, rows joined on the normalised key."""
    from saga_kgqa.sources.federation import join_sources

    request = f"{left}: {first} ==> {right}: {second}"
    _emit(lambda sources: join_sources(sources, request), catalog, survey_dir, as_json)


def register(app: typer.Typer) -> None:
    """Add ``saga source …`` to the ``saga`` application."""
    app.add_typer(source_app, name="source")

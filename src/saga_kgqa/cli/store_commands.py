"""``saga load`` and ``saga sparql``: build a store, run one query.

:func:`open_graph` (from the composition root, :mod:`saga_kgqa.app.open`) opens what the shared
graph options name, for every command. The store
and guard modules are imported inside the functions that use them, so that ``--help``
stays as cheap as typer (see :mod:`saga_kgqa.cli`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from saga_kgqa.app.open import open_graph
from saga_kgqa.cli.options import DataOption, EndpointOption, ProfileOption, QueryArgument
from saga_kgqa.cli.output import fail, print_json, print_result, read_query, stderr, stdout
from saga_kgqa.errors import ConfigurationError, SagaError
from saga_kgqa.kg.cache.replay_cache import CacheMode
from saga_kgqa.kg.core.backend import MAX_DEADLINE_S

__all__ = [
    "DataOption",
    "EndpointOption",
    "IndexWhen",
    "ProfileOption",
    "build_name_index",
    "load",
    "open_graph",
    "register",
    "sparql",
]


class IndexWhen(StrEnum):
    """When ``saga load`` builds the store's full-text name index."""

    NOW = "now"
    BACKGROUND = "background"
    OFF = "off"


CacheDirOption = Annotated[Path | None, typer.Option(help="Directory of the record/replay cache.")]
CacheModeOption = Annotated[CacheMode, typer.Option(help="Record/replay cache mode.")]


def load(
    files: Annotated[list[Path], typer.Argument(help="RDF files: Turtle, N-Triples, N-Quads, TriG, RDF/XML, OWL.")],
    store: Annotated[Path, typer.Option("--store", "-s", help="Store directory to create or extend.")],
    index: Annotated[
        IndexWhen,
        typer.Option(
            "--index",
            help="The store's full-text name index (search and entity resolution use it): build it now, "
            "in the background after the store is loaded (log and progress in the store), or not at all.",
        ),
    ] = IndexWhen.NOW,
    name_index: Annotated[bool, typer.Option(hidden=True, help="Old spelling: --no-name-index is --index off.")] = True,
    lenient: Annotated[
        bool,
        typer.Option(
            "--lenient",
            help="Load what parses: a syntax error's part (RDF/XML's stray text, else its line) is left out and "
            "named, up to 100 per file; a file that still fails is refused whole.",
        ),
    ] = False,
) -> None:
    """Load RDF files into a persisted store directory for later runs: all of them, or the store stays as it was."""
    from saga_kgqa.cli.progress import progress_bar
    from saga_kgqa.kg.embedded.declared_prefixes import read_declared_prefixes, save_store_prefixes
    from saga_kgqa.kg.embedded.loading import build_store

    started = time.perf_counter()
    left_out: list[str] = []
    try:
        declared = read_declared_prefixes(files)
        with progress_bar(f"loading {len(files)} file(s)", len(files)) as advance:
            count = build_store(
                store,
                files,
                finish=lambda built: save_store_prefixes(built, declared),
                loaded=lambda _: advance(),
                lenient=lenient,
                skipped=lambda part: left_out.append(part.describe()),
            )
    except SagaError as exc:
        fail(exc)
    for line in left_out:
        stderr.print(line, markup=False, highlight=False)
    partly = f"; {len(left_out)} unparsable part(s) skipped, listed above (--lenient)" if left_out else ""
    stdout.print(
        f"{count} triples in {store} (loaded {len(files)} file(s) in {time.perf_counter() - started:.1f} s{partly})",
        markup=False,
        highlight=False,
    )
    if not name_index or index is not IndexWhen.NOW:
        _report_schema_index(lambda: _build_schema_index(store))
        if index is IndexWhen.BACKGROUND and name_index:
            _start_background(store)
        return
    # The schema index's queries run in the store's worker process: beside the name stream, on the other core.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="saga-schema") as pool:
        schema = pool.submit(_build_schema_index, store)
        build_name_index(store)
        _report_schema_index(schema.result)


def _build_schema_index(store: Path) -> float:
    """Build the content's schema index now, so the first ``search``/``lookup`` opens it instead (issue 27).

    Returns the seconds it took.
    """
    from saga_kgqa.app.open import load_or_build_schema

    started = time.perf_counter()
    with open_graph([store], None, None) as graph:
        load_or_build_schema(graph, None, note=lambda _text: None)
    return time.perf_counter() - started


def _report_schema_index(built: Callable[[], float]) -> None:
    """Say how long the schema index took (``built`` gives the seconds), or fail with the build's error."""
    try:
        seconds = built()
    except SagaError as exc:
        fail(exc)
    stdout.print(f"schema index built for later commands in {seconds:.1f} s", markup=False)


def _start_background(store: Path) -> None:
    """Start the name index build in a detached process and say where to follow it."""
    from saga_kgqa.tools.search.background_index import LOG_FILE, start_background_build

    try:
        pid, started = start_background_build(store)
    except OSError as exc:
        fail(ConfigurationError(f"cannot start the name index build: {exc}"))
    if not started:  # one builder per store: the running one indexes the new content when it ends
        stdout.print(
            f"the store's names are already being indexed in the background (process {pid}; log "
            f"{store / LOG_FILE}); it indexes this load's content too when it ends",
            markup=False,
            highlight=False,
        )
        return
    stdout.print(
        f"indexing names in the background (process {pid}; log {store / LOG_FILE}); "
        "searches meanwhile read the store's names directly, and say so",
        markup=False,
        highlight=False,
    )


def build_name_index(store: Path, *, log_progress: bool = False) -> None:
    """Build the full-text name index inside the store, surveying it meanwhile (for its identifier literals).

    ``log_progress`` prints a line per checkpoint (the background build's log has no bar).
    """
    from saga_kgqa.app.sources import source_set
    from saga_kgqa.cli.progress import progress_bar
    from saga_kgqa.config.catalog import Catalog, SourceRecord
    from saga_kgqa.sources.resolution import name_index

    started = time.perf_counter()
    record = SourceRecord(name="store", store=store)
    try:
        with source_set(Catalog(sources={"store": record}, default_source="store")) as sources:
            source = sources.get("store")
            # The build surveys the store beside the first names (its identifier literals), on the other core.
            with progress_bar("indexing names (and surveying the store)", None) as advance:
                done = [0]

                def moved(count: int) -> None:
                    advance(count - done[0])
                    done[0] = count
                    if log_progress:
                        stdout.print(f"{count:,} names indexed so far", markup=False, highlight=False)

                names = len(name_index(source, rebuild=True, progress=moved))
    except SagaError as exc:
        fail(exc)
    stdout.print(f"{names} names indexed for search in {time.perf_counter() - started:.1f} s", markup=False)


def sparql(
    query: QueryArgument,
    data: DataOption = None,
    endpoint: EndpointOption = None,
    profile: ProfileOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    max_rows: Annotated[int, typer.Option(min=1, help="Rows kept before the result is truncated.")] = 1000,
    timeout: Annotated[
        float, typer.Option(min=0.1, max=MAX_DEADLINE_S, help="Total deadline of the query, in seconds.")
    ] = 30.0,
    cache_dir: CacheDirOption = None,
    cache_mode: CacheModeOption = CacheMode.OFF,
) -> None:
    """Run one read-only SPARQL query; a rejected query exits with status 2 and a one-line reason.

    IRIs print with the query's own prefixes and the graph's labels; an empty result says which part of
    the query matches nothing (on standard error), as ``saga execute`` finds it.
    """
    from saga_kgqa.cli.tools.sparql_view import cell_renderer, display_prefixes, empty_reason, graph_labels
    from saga_kgqa.kg.core.backend import ExecutionLimits

    text = read_query(query)
    limits = ExecutionLimits(deadline_s=timeout, max_rows=max_rows)
    started = time.monotonic()
    reason = None
    try:
        with open_graph(data, endpoint, profile, cache_dir, cache_mode) as graph:
            result = graph.query(text, limits=limits)
            if result.form != "ASK" and not result.rows and result.complete:
                reason = empty_reason(graph, text, deadline_s=max(0.1, timeout - (time.monotonic() - started)))
            iri = None if as_json else cell_renderer(display_prefixes(graph, text), graph_labels(graph, result))
    except SagaError as exc:
        fail(exc)
    if as_json:
        print_json(result.to_dict())
    else:
        print_result(result, iri)
    if reason:
        stderr.print(f"why it is empty: {reason}", markup=False, highlight=False, style="yellow")
    if result.truncated:
        stderr.print("note: the result was truncated by a cap", style="yellow")


def register(app: typer.Typer) -> None:
    """Add the store commands to the ``saga`` application."""
    app.command("load")(load)
    app.command("sparql")(sparql)

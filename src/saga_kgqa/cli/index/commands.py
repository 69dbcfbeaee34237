"""``saga index build``: build the schema index of a graph, save it, and report its coverage.

:func:`load_or_build_schema` is how every command gets its schema index (the composition root,
:mod:`saga_kgqa.app.open`, builds it). The schema and
store modules are imported inside the functions that use them (see :mod:`saga_kgqa.cli`).
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from saga_kgqa.app.open import build_index, dialect_schema, open_graph
from saga_kgqa.app.open import load_or_build_schema as open_schema
from saga_kgqa.cli.groups import command_group
from saga_kgqa.cli.options import DataOption, EndpointOption, ProfileOption, dialect_option
from saga_kgqa.cli.output import fail, print_json, stderr, stdout
from saga_kgqa.config import settings
from saga_kgqa.errors import ConfigurationError, SagaError

if TYPE_CHECKING:
    from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
    from saga_kgqa.schema import SchemaIndex, SchemaVocabulary


@dataclasses.dataclass(frozen=True)
class SchemaCoverage:
    """How much of a graph's properties the schema index constrains, and from which source.

    Attributes:
        endpoint_id: The graph the index was built from.
        properties: Properties indexed.
        with_domain: Properties with a known domain.
        with_range: Properties with a known range.
        domain_by_source: Properties per domain source (formal, curated, induced, surveyed).
        range_by_source: Properties per range source.
        domain_by_origin: Properties per named origin of their domain (``fb_roles``,
            ``yago45_schema``, ``codex:...``); a domain with two origins counts under both.
        range_by_origin: Properties per named origin of their range.
        classes: Classes in the hierarchy.
        notes: Where a limit was reached or a query timed out while building.
    """

    endpoint_id: str
    properties: int
    with_domain: int
    with_range: int
    domain_by_source: dict[str, int]
    range_by_source: dict[str, int]
    domain_by_origin: dict[str, int]
    range_by_origin: dict[str, int]
    classes: int
    notes: list[str]


def schema_coverage(index: SchemaIndex) -> SchemaCoverage:
    """Count the properties of an index with a domain and a range, per source."""
    entries = index.properties.values()
    domains = Counter(e.domain_source for e in entries if e.domain and e.domain_source != "none")
    ranges = Counter(e.range_source for e in entries if e.range and e.range_source != "none")
    domain_origins = Counter(o for e in entries if e.domain for o in e.domain_origins)
    range_origins = Counter(o for e in entries if e.range for o in e.range_origins)
    return SchemaCoverage(
        endpoint_id=index.endpoint_id,
        properties=len(index.properties),
        with_domain=sum(domains.values()),
        with_range=sum(ranges.values()),
        domain_by_source=dict(sorted(domains.items())),
        range_by_source=dict(sorted(ranges.items())),
        domain_by_origin=dict(sorted(domain_origins.items())),
        range_by_origin=dict(sorted(range_origins.items())),
        classes=len(index.classes),
        notes=list(index.notes),
    )


def load_or_build_schema(
    graph: KnowledgeGraph, schema_file: Path | None, *, vocabulary: SchemaVocabulary | None = None
) -> SchemaIndex:
    """Load ``schema_file`` when given, else the index built for this content before, else build it (saying so).

    See :func:`saga_kgqa.app.open.load_or_build_schema`.

    Raises:
        ConfigurationError: The file is missing, unreadable or of another format version.
        BackendError: Building failed.
    """
    return open_schema(graph, schema_file, vocabulary=vocabulary, note=stderr_note)


def stderr_note(text: str) -> None:
    """Print a note from the composition root on stderr, dimmed."""
    stderr.print(text, style="dim")


def build(
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write the schema index (JSON).")],
    data: DataOption = None,
    endpoint: EndpointOption = None,
    profile: ProfileOption = None,
    induce: Annotated[bool, typer.Option(help="Induce missing domains and ranges from sampled data.")] = True,
    stratify: Annotated[bool, typer.Option(help="Also sample every class's instances.")] = True,
    sample_size: Annotated[int, typer.Option(min=1, help="Values sampled per property side.")] = 200,
    as_json: Annotated[bool, typer.Option("--json", help="Print the coverage as JSON.")] = False,
    dialect: Annotated[
        str | None,
        dialect_option(
            "generic (the default) builds from the graph; wikidata builds from P2302 constraints on --endpoint, "
            "the offline sources under --data-dir, or both (the offline index fills what the constraints leave "
            "open); freebase from GrailQA's fb_roles under --data-dir."
        ),
    ] = None,
    data_dir: Annotated[
        Path | None,
        typer.Option(help="Offline sources of --dialect (default: $SAGA_DATA_DIR, else ../shared/data)."),
    ] = None,
) -> None:
    """Build the schema index of a graph, write it to --out and print its coverage."""
    started = time.perf_counter()
    try:
        if dialect is not None and dialect != "generic":
            index = _build_dialect(dialect, data_dir, data, endpoint, profile)
        elif data_dir is not None:
            raise ConfigurationError("--data-dir is for --dialect; give RDF files with --data")
        else:
            with open_graph(data, endpoint, profile) as graph:
                index = build_index(graph, induce=induce, stratify=stratify, sample_size=sample_size)
        index.save(out)
    except SagaError as exc:
        fail(exc)
    coverage = schema_coverage(index)
    if as_json:
        print_json(dataclasses.asdict(coverage))
        return
    for line in coverage_lines(coverage):
        stdout.print(line, markup=False, highlight=False)
    stdout.print(f"written to {out} in {time.perf_counter() - started:.1f} s", markup=False, style="dim")


def _build_dialect(
    dialect: str, data_dir: Path | None, data: list[Path] | None, endpoint: str | None, profile: str | None
) -> SchemaIndex:
    """The ``--dialect`` path: offline sources, (Wikidata) an endpoint's constraints, or both."""
    if data:
        raise ConfigurationError("--dialect reads --data-dir (or --endpoint for wikidata), not --data")
    offline: Path | None = settings.data_dir(data_dir)
    if endpoint is None:
        return dialect_schema(dialect, data_dir=offline)
    if data_dir is None and offline is not None and not offline.is_dir():
        # The default directory is optional beside an endpoint; an explicit --data-dir must exist.
        stderr.print(f"note: offline fill skipped: no offline sources at {offline} (give --data-dir)", style="dim")
        offline = None
    with open_graph(None, endpoint, profile or "wikidata") as graph:
        return dialect_schema(dialect, data_dir=offline, graph=graph)


def coverage_lines(coverage: SchemaCoverage) -> list[str]:
    """Describe a coverage report in a few plain lines."""

    def per_source(counts: dict[str, int]) -> str:
        return ", ".join(f"{source} {n}" for source, n in counts.items()) or "none"

    lines = [
        f"properties indexed: {coverage.properties}",
        f"with domain: {coverage.with_domain} ({per_source(coverage.domain_by_source)})",
        f"with range: {coverage.with_range} ({per_source(coverage.range_by_source)})",
    ]
    if coverage.domain_by_origin or coverage.range_by_origin:
        lines.append(f"domain by origin: {per_source(coverage.domain_by_origin)}")
        lines.append(f"range by origin: {per_source(coverage.range_by_origin)}")
    lines.append(f"classes: {coverage.classes}")
    lines.extend(f"note: {note}" for note in coverage.notes)
    return lines


def register(app: typer.Typer) -> None:
    """Add ``saga index build`` to the ``saga`` application."""
    index_app = command_group("Build and inspect schema indexes.")
    index_app.command("build")(build)
    from saga_kgqa.cli.index.examples import add_example_commands

    add_example_commands(index_app)
    app.add_typer(index_app, name="index")

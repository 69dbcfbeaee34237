"""``saga index examples``: build a source's worked-example file; ``saga index example-search``: query it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from saga_kgqa.cli.option_groups import with_option_groups
from saga_kgqa.cli.options import DataDirOption, GraphOptions
from saga_kgqa.cli.output import fail, print_json
from saga_kgqa.config.context import EmbeddingRuntimeName
from saga_kgqa.errors import SagaError

ExamplesRuntimeOption = Annotated[
    EmbeddingRuntimeName | None,
    typer.Option(
        "--embedding-runtime",
        help="The example index's model: e5, minilm or openai (SAGA_EMBEDDING_BASE_URL)"
        " (default SAGA_EXAMPLES_EMBEDDING_RUNTIME, else e5).",
        show_default=False,
    ),
]


@with_option_groups
def examples_build(
    out: Annotated[Path, typer.Option("--out", "-o", help="Examples file to write (JSONL).")],
    *,
    graph: GraphOptions,
    from_file: Annotated[
        list[Path] | None,
        typer.Option("--from", help="RDF files with published examples (SHACL sh:select/sh:ask, spex, shui)."),
    ] = None,
    from_graph: Annotated[bool, typer.Option(help="Also read the examples the graph publishes about itself.")] = True,
    train: Annotated[
        list[str] | None, typer.Option(help="A train split by benchmark name (qald9plus-train, wwq-train ...).")
    ] = None,
    data_dir: DataDirOption = None,
    execute: Annotated[bool, typer.Option(help="Run each example on the graph and keep its result count.")] = True,
) -> None:
    """Harvest question-query pairs, check each with the guard (and run it), write them for `--examples`."""
    from saga_kgqa.benchmarks.loaders import load_benchmark
    from saga_kgqa.cli.store_commands import open_graph
    from saga_kgqa.config import settings
    from saga_kgqa.examples.check import check_examples
    from saga_kgqa.examples.harvest import from_benchmark, harvest_files, harvest_graph
    from saga_kgqa.examples.model import write_examples

    try:
        with open_graph(graph.data, graph.endpoint, graph.profile) as kg:
            found = harvest_files(from_file or [])
            if from_graph:
                found += harvest_graph(kg)
            for name in train or []:
                found += from_benchmark(load_benchmark(name, settings.data_dir(data_dir)).questions, name)
            report = check_examples(found, kg, execute=execute)
        written = write_examples(report.kept, out)
    except SagaError as exc:
        fail(exc)
    reasons: dict[str, int] = {}
    for _example, why in report.dropped:
        key = why.split(":")[0]
        reasons[key] = reasons.get(key, 0) + 1
    print_json({"examples": str(out), "written": written, "dropped": reasons})


def examples_search(
    question: Annotated[str, typer.Argument(help="The question to find worked examples for.")],
    examples: Annotated[Path, typer.Option("--examples", help="Examples file from `saga index examples`.")],
    k: Annotated[int, typer.Option("-k", help="Examples to show.")] = 3,
    ranking: Annotated[
        str | None,
        typer.Option(help="embedding, bm25 or random (default: the agent's, the configured runtime else BM25)."),
    ] = None,
    embedding_runtime: ExamplesRuntimeOption = None,
) -> None:
    """Show the k examples nearest to a question (what the agent's prompt would get), and the ranking used."""
    from saga_kgqa.config.context import SagaContext
    from saga_kgqa.examples.configured import configured_embeddings, configured_examples
    from saga_kgqa.examples.index import ExampleIndex
    from saga_kgqa.examples.model import read_examples

    try:
        if ranking not in (None, "embedding", "bm25", "random"):
            raise typer.BadParameter("--ranking must be embedding, bm25 or random")
        explicit: dict[str, Any] = {"examples_embedding_runtime": embedding_runtime} if embedding_runtime else {}
        context = SagaContext.from_env(examples_file=str(examples), examples_k=max(k, 1), **explicit)
        index: ExampleIndex | None
        if ranking is None:
            index = configured_examples(context)  # the agent's own index: same runtime, same fallback
        else:
            embedder = configured_embeddings(context, required=True) if ranking == "embedding" else None
            index = ExampleIndex(read_examples(examples), ranking=ranking, embeddings=embedder)  # type: ignore[arg-type]
        chosen = index.examples_for(question, k) if index is not None else []
    except SagaError as exc:
        fail(exc)
    print_json(
        {
            "question": question,
            "ranking": index.ranking if index is not None else None,
            "examples": [e.model_dump() for e in chosen],
        }
    )


@with_option_groups
def examples_confirm(
    run_file: Annotated[Path, typer.Argument(help="`saga ask --json` output or a `saga ask --trace` trajectory.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The source's examples file (JSONL) to append to.")],
    *,
    graph: GraphOptions,
    benchmark: Annotated[
        list[str] | None,
        typer.Option(help="Benchmarks the run must not come from (default: every non-train split in the data dir)."),
    ] = None,
    data_dir: DataDirOption = None,
    execute: Annotated[bool, typer.Option(help="Run the query on the source and keep its result count.")] = True,
) -> None:
    """Append a run you checked (it ended `answered`) to a source's examples file, after the guards."""
    from saga_kgqa.cli.store_commands import open_graph
    from saga_kgqa.config import settings
    from saga_kgqa.examples.confirmed import confirm_run, read_run
    from saga_kgqa.examples.leakage import LeakageGuard

    try:
        run = read_run(run_file)
        questions, screened = _benchmark_questions(benchmark, settings.data_dir(data_dir))
        with open_graph(graph.data, graph.endpoint, graph.profile) as kg:
            kept = confirm_run(run, kg, LeakageGuard(questions), out, execute=execute)
    except SagaError as exc:
        fail(exc)
    print_json(
        {
            "examples": str(out),
            "appended": {"question": kept.question, "result_count": kept.result_count, "checked_on": kept.checked_on},
            "screened_against": screened,
        }
    )


def _benchmark_questions(names: list[str] | None, data_dir: Path) -> tuple[list[Any], list[str]]:
    """The questions of the named benchmarks, or of every non-train split whose files are here."""
    from saga_kgqa.benchmarks.loaders import BENCHMARKS, load_benchmark
    from saga_kgqa.errors import ConfigurationError

    chosen = names or [name for name in BENCHMARKS if not name.endswith("-train")]
    questions: list[Any] = []
    screened: list[str] = []
    for name in chosen:
        try:
            questions += load_benchmark(name, data_dir).questions
        except ConfigurationError:
            if names:  # one the user named must load
                raise
            continue  # a split whose files are not here cannot be confused with this run
        screened.append(name)
    return questions, screened


def add_example_commands(index_app: typer.Typer) -> None:
    """Add ``examples``, ``example-search`` and ``example-confirm`` to ``saga index``."""
    index_app.command("examples")(examples_build)
    index_app.command("example-search")(examples_search)
    index_app.command("example-confirm")(examples_confirm)

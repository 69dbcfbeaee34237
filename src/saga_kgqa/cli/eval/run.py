"""``saga eval run``: resumable benchmark runs, and the options and helpers ``saga eval ablate`` shares."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from saga_kgqa.app.open import open_graph
from saga_kgqa.cli.eval.options import BenchmarkArgument, QuestionOptions
from saga_kgqa.cli.eval.preflight import check_model_reachable, check_scoring_runtime
from saga_kgqa.cli.option_groups import OptionGroup, with_option_groups
from saga_kgqa.cli.options import (
    AnswerShapeOption,
    GraphOptions,
    MarsOptions,
    RunSchemaOption,
    dialect_name,
    dialect_option,
)
from saga_kgqa.cli.output import fail, print_json
from saga_kgqa.cli.progress import progress_bar
from saga_kgqa.config.context import EntitySearch, FinalQueryPolicy, Method
from saga_kgqa.config.open_options import OpenOptions
from saga_kgqa.errors import ConfigurationError, SagaError
from saga_kgqa.kg.cache.replay_cache import CacheMode

if TYPE_CHECKING:
    from saga_kgqa.config.context import SagaContext
    from saga_kgqa.graph.model_calls import ModelFactory
    from saga_kgqa.runs.batch import Answerer
    from saga_kgqa.tools.toolbox import SagaToolbox


class AnswererKind(StrEnum):
    """Who answers: the SAGA agent, or the scripted gold-replay baseline (no model)."""

    AGENT = "agent"
    GOLD_REPLAY = "gold-replay"


ModelOption = Annotated[
    str, typer.Option(help="Chat model name (else SAGA_MODEL / OPENAI_MODEL; key in SAGA_API_KEY / OPENAI_API_KEY).")
]
BaseUrlOption = Annotated[str | None, typer.Option(help="Base URL of an OpenAI-compatible server.")]
MaxStepsOption = Annotated[int, typer.Option(min=1, help="Controller steps per question.")]
ConcurrencyOption = Annotated[int, typer.Option(min=1, help="Questions answered at once.")]
ModelConcurrencyOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="Requests in flight to the model server at once (else SAGA_MODEL_CONCURRENCY; default: no cap "
        "beyond --concurrency). SPARQL endpoints have their own per-endpoint limit in their profile.",
    ),
]
RetryOption = Annotated[bool, typer.Option("--retry-failed", help="Redo questions that failed or timed out.")]
LimitOption = Annotated[int | None, typer.Option(min=1, help="Only the first N questions.")]
MaxSecondsOption = Annotated[
    float | None, typer.Option(min=0.1, help="Seconds per question (checked between agent steps).")
]
MaxTokensOption = Annotated[int | None, typer.Option(min=1, help="Tokens per question (checked between agent steps).")]
CacheDirOption = Annotated[
    Path | None, typer.Option(help="Record/replay cache directory (default: beside the predictions).")
]
CacheModeOption = Annotated[
    CacheMode | None,
    typer.Option(help="Record/replay cache mode (default: replay-or-record for --endpoint, else off)."),
]
DialectOption = Annotated[
    str | None,
    dialect_option(
        "It sets the tools, vocabulary and schema index (default: wikidata under a wikidata/qlever "
        "profile, else the benchmark's graph: wikidata for QALD/WWQ/SPINACH, freebase for CWQ/GrailQA/WebQ, "
        "else generic). A dialect's schema index is built from --data-dir unless --schema is given."
    ),
]
MethodOption = Annotated[Method, typer.Option(help="saga (the controller) or mars (the pattern pipeline).")]
EntitySearchOption = Annotated[
    EntitySearch,
    typer.Option(help="Name search: off (the graph's names) or wikidata-api (wbsearchentities; SAGA_CONTACT)."),
]


@dataclass(frozen=True)
class AgentOptions(OptionGroup):
    """How a benchmark run (``saga eval run``, ``saga eval ablate``) drives the agent: model, caps, cache, tools."""

    model: ModelOption = ""
    base_url: BaseUrlOption = None
    max_steps: MaxStepsOption = 20
    concurrency: ConcurrencyOption = 1
    model_concurrency: ModelConcurrencyOption = None
    retry_failed: RetryOption = False
    limit: LimitOption = None
    cache_dir: CacheDirOption = None
    cache_mode: CacheModeOption = None
    max_seconds: MaxSecondsOption = None
    max_tokens: MaxTokensOption = None
    dialect: DialectOption = None
    schema_file: RunSchemaOption = None
    entity_search: EntitySearchOption = "off"
    method: MethodOption = "saga"


def chat_model_factory(context: SagaContext, *, model_concurrency: int | None = None) -> ModelFactory:
    """The configured chat models (:class:`~saga_kgqa.models.ConfiguredModelFactory`), checked before the run.

    Building the controller's model once up front makes a missing model or key a
    configuration error now, not one failed record per question.

    Raises:
        ConfigurationError: No model is configured, or the settings are unusable.
    """
    from saga_kgqa.config.model_settings import ModelSettings
    from saga_kgqa.models import ConfiguredModelFactory

    factory = ConfiguredModelFactory(ModelSettings(max_concurrency=model_concurrency))
    factory(context, "controller")
    return factory


def run_context(
    graph: GraphOptions,
    agent: AgentOptions,
    tools: ToolSettings,
    switches: Mapping[str, Any],
) -> SagaContext:
    """The run's context: the command's values, then ``switches`` given, else ``SAGA_<FIELD>``, else defaults."""
    from saga_kgqa.config.context import SagaContext

    joined = ",".join(str(p) for p in graph.data) if graph.data else None
    return SagaContext.from_env(
        model=agent.model,
        base_url=agent.base_url,
        data=joined,
        endpoint=graph.endpoint,
        profile=graph.profile,
        max_steps=agent.max_steps,
        dialect=tools.dialect,
        schema_index=str(tools.schema_file) if tools.schema_file else None,
        entity_search=tools.entity_search,
        # A benchmark run never stops to ask which entity a name means (issue 37), and reads no evidence
        # (it scores queries); both are recorded in the run's configuration with the rest of the context.
        clarify="never",
        evidence_rows=0,
        **{name: value for name, value in switches.items() if value is not None},
    )


#: How the agent's tools read the graph (the composition root's options; the CLI's name for them).
ToolSettings = OpenOptions


def tool_settings(
    benchmark: str,
    profile: str | None,
    dialect: str | None,
    schema_file: Path | None,
    data_dir: Path | None,
    entity_search: EntitySearch,
) -> ToolSettings:
    """The tool settings of a run: an explicit dialect, else the profile's, else the benchmark's graph's.

    Raises:
        typer.BadParameter: ``dialect`` names no dialect.
    """
    from saga_kgqa.app.dialects import benchmark_dialect, dialect_implied_by_profile
    from saga_kgqa.config.settings import data_dir as shared_data_dir

    chosen = dialect_name(dialect) or dialect_implied_by_profile(profile) or benchmark_dialect(benchmark)
    sources = shared_data_dir(data_dir) if chosen != "generic" else None
    return ToolSettings(chosen, schema_file, sources, entity_search)


def agent_tools(benchmark: str, chosen: QuestionOptions, graph: GraphOptions, agent: AgentOptions) -> ToolSettings:
    """:func:`tool_settings` from a benchmark run's options.

    Raises:
        typer.BadParameter: ``--dialect`` names no dialect.
    """
    profile, data_dir = graph.profile, chosen.data_dir
    return tool_settings(benchmark, profile, agent.dialect, agent.schema_file, data_dir, agent.entity_search)


def cache_settings(
    endpoint: str | None, cache_dir: Path | None, cache_mode: CacheMode | None, default_dir: Path
) -> tuple[Path | None, CacheMode]:
    """Record/replay is on by default for endpoints (a rerun replays instead of asking again), off for local data."""
    mode = cache_mode or (CacheMode.REPLAY_OR_RECORD if endpoint else CacheMode.OFF)
    return (cache_dir or default_dir) if mode is not CacheMode.OFF else None, mode


def open_toolbox(
    data: list[Path] | None,
    endpoint: str | None,
    profile: str | None,
    cache_dir: Path | None,
    cache_mode: CacheMode,
    tools: ToolSettings | None = None,
) -> SagaToolbox:
    """The agent's toolbox over --data or --endpoint, behind the record/replay cache when it is on.

    The tools speak ``tools.dialect`` over ``tools.schema_file``, else the dialect's index
    from ``tools.data_dir``, else an index built from the graph with induction.

    Raises:
        ConfigurationError: The graph, schema or search settings are unusable.
        BackendError: The graph failed while the schema index was built.
    """
    from saga_kgqa.app.toolboxes import open_toolbox as default_open_toolbox

    return default_open_toolbox(data, endpoint, profile, tools, cache_dir=cache_dir, cache_mode=cache_mode)


def agent_answerer_for(factory: ModelFactory, toolbox: SagaToolbox, agent: AgentOptions) -> Any:
    """Per context, an answerer that streams the chosen graph (SAGA's controller or MARS) over one toolbox."""
    from saga_kgqa.app.run import compile_graph
    from saga_kgqa.runs.agent_answerer import AgentAnswerer

    # Unkept runs (the predictions file is the record); SAGA grounds over the configured catalog's sources.
    graph = compile_graph(agent.method, factory, toolbox, sources="environment")

    def answerer_for(context: SagaContext) -> Answerer:
        return AgentAnswerer(graph, context, toolbox.graph, max_seconds=agent.max_seconds, max_tokens=agent.max_tokens)

    return answerer_for


@with_option_groups
def run_command(
    benchmark: BenchmarkArgument,
    out: Annotated[Path, typer.Option("--out", "-o", help="Predictions file (JSONL; resumed when it exists).")],
    answerer: Annotated[AnswererKind, typer.Option(help="agent, or gold-replay (runs each gold query).")] = (
        AnswererKind.AGENT
    ),
    gold: Annotated[Path | None, typer.Option(help="Gold store: score the run when it ends.")] = None,
    *,
    chosen: QuestionOptions,
    graph: GraphOptions,
    agent: AgentOptions,
    mars: MarsOptions,
    examples: Annotated[
        Path | None,
        typer.Option(help="Worked examples (JSONL or RDF with SHACL/spex/shui examples); the benchmark's own refused."),
    ] = None,
    examples_k: Annotated[int, typer.Option(help="Examples shown per prompt.")] = 3,
    answer_shape: AnswerShapeOption = None,
    final_query: Annotated[
        FinalQueryPolicy | None,
        typer.Option(
            help="Which attempt is the answer: last_executed (SAGA's stop(), the default everywhere) or, for "
            "benchmark comparisons only, last_answering (the last attempt that returned rows); recorded in the "
            "run's configuration.",
            show_default=False,
        ),
    ] = None,
    shard: Annotated[
        str | None,
        typer.Option(help="Answer only shard I of N (I/N, by question id); merge with `saga eval merge`."),
    ] = None,
) -> None:
    """Answer every question of a benchmark, one JSON line per question; rerun to resume."""
    from saga_kgqa.eval.qa.ablation import run_summary, score_run
    from saga_kgqa.eval.qa.gold import GoldStore
    from saga_kgqa.eval.qa.shards import SHARD_KEY, parse_shard, shard_questions
    from saga_kgqa.runs.batch import GoldReplayAnswerer, run_benchmark
    from saga_kgqa.runs.predictions import outcome_counts

    try:
        chosen_shard = parse_shard(shard) if shard is not None else None
        every_question = chosen.questions(benchmark)
        questions = shard_questions(every_question[: agent.limit], chosen_shard)
        tools = agent_tools(benchmark, chosen, graph, agent)
        switches = {**mars.switches(), "answer_shape": answer_shape, "final_query": final_query}
        gold_store = None
        if gold is not None:  # inputs first: a campaign must not fail after its last question
            check_scoring_runtime()
            gold_store = GoldStore.load(gold)
        context = run_context(graph, agent, tools, switches)
        cache = cache_settings(graph.endpoint, agent.cache_dir, agent.cache_mode, out.with_name(out.name + ".cache"))
        examples_info: dict[str, Any] | None = None
        if examples is not None:
            # Screened against the whole benchmark, not the --limit/--shard part: an unasked question still leaks.
            context, examples_info = _with_examples(context, examples, examples_k, every_question, out)
        config: dict[str, Any] = {
            "benchmark": benchmark,
            "language": chosen.language,
            "graph": chosen.graph_name,
            "answerer": answerer.value,
            "limit": agent.limit,
        }
        if chosen_shard is not None:
            config[SHARD_KEY] = str(chosen_shard)
        if examples_info is not None:
            config["examples"] = examples_info
        if answerer is AnswererKind.GOLD_REPLAY:
            if not graph.data and not graph.endpoint:
                raise ConfigurationError("gold-replay needs --data or --endpoint")
            kg = open_graph(graph.data, graph.endpoint, graph.profile, *cache)
            answering: Answerer = GoldReplayAnswerer(kg)
            config |= {"data": [str(p) for p in graph.data or []], "endpoint": graph.endpoint, "profile": graph.profile}
        else:
            factory = chat_model_factory(context, model_concurrency=agent.model_concurrency)
            toolbox = open_toolbox(graph.data, graph.endpoint, graph.profile, *cache, tools)
            check_model_reachable(factory(context, "controller"))  # one request, after the data opened
            answering = agent_answerer_for(factory, toolbox, agent)(context)
            config |= {
                "context": dataclasses.asdict(context),
                "max_seconds": agent.max_seconds,
                "max_tokens": agent.max_tokens,
            }
            config["method"] = agent.method
        manifest = _start_manifest(config, benchmark, chosen.data_dir, graph.data, gold, out)
        with progress_bar(f"{benchmark}: questions", len(questions)) as advance:
            done = run_benchmark(
                questions,
                answering,
                out,
                config=config,
                retry_failed=agent.retry_failed,
                concurrency=agent.concurrency,
                progress=lambda _record: advance(),
            )
        _finish_manifest(manifest, out, len(done.records))
        report: dict[str, Any] = {
            "predictions": str(out),
            "answered": done.answered,
            "skipped": done.skipped,
            # How the runs ended, as every face reports it (docs/outcomes.md).
            "outcomes": outcome_counts([done.records[q.id] for q in questions if q.id in done.records]),
        }
        report["manifest"] = str(_manifest_file(out))
        if gold_store is not None:
            from saga_kgqa.examples.run_examples import verify_run_examples

            verify_run_examples(config, every_question)
            records = [done.records[q.id] for q in questions if q.id in done.records]
            report["summary"] = run_summary(score_run(records, gold_store))
    except SagaError as exc:
        fail(exc)
    print_json(report)


def _manifest_file(out: Path) -> Path:
    from saga_kgqa.eval.qa.manifest import manifest_path

    return manifest_path(out)


def _start_manifest(
    config: dict[str, Any], benchmark: str, data_dir: Path | None, data: list[Path] | None, gold: Path | None, out: Path
) -> dict[str, Any]:
    """Write the run's manifest before the first question (see :mod:`saga_kgqa.eval.qa.manifest`)."""
    from saga_kgqa.config import settings
    from saga_kgqa.eval.qa.manifest import build_manifest, write_manifest

    manifest = build_manifest(
        config, benchmark=benchmark, data_dir=settings.data_dir(data_dir), data_files=data or (), gold=gold
    )
    write_manifest(_manifest_file(out), manifest)
    return manifest


def _finish_manifest(manifest: dict[str, Any], out: Path, records: int) -> None:
    from saga_kgqa.eval.qa.manifest import finish_manifest, write_manifest

    write_manifest(_manifest_file(out), finish_manifest(manifest, out, records))


def _with_examples(
    context: SagaContext, source: Path, k: int, questions: list[Any], out: Path
) -> tuple[SagaContext, dict[str, Any]]:
    """The context with the run's screened examples, and what the leakage guard did (said on stderr)."""
    from saga_kgqa.examples.run_examples import prepare_run_examples

    kept, info = prepare_run_examples(source, questions, out)
    if info["refused"]:
        typer.echo(
            f"examples: refused {info['refused']} of {info['refused'] + info['kept']} from {source} "
            f"(the benchmark's own questions or queries), e.g. {info['refused_because'][0]}",
            err=True,
        )
    chosen = dataclasses.replace(context, examples_file=str(kept) if kept else None, examples_k=k)
    return chosen, info

"""``saga eval ablate``: one run per ablation variant (SAGA's Table 5 or MARS's), side by side."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer

from saga_kgqa.cli.eval.options import (
    BenchmarkArgument,
    DataDirOption,
    GraphOption,
    LanguageOption,
    benchmark_questions,
)
from saga_kgqa.cli.eval.preflight import check_model_reachable, check_scoring_runtime
from saga_kgqa.cli.eval.run import (
    BaseUrlOption,
    CacheDirOption,
    CacheModeOption,
    ConcurrencyOption,
    DialectOption,
    EntitySearchOption,
    LimitOption,
    MaxSecondsOption,
    MaxStepsOption,
    MaxTokensOption,
    MethodOption,
    ModelConcurrencyOption,
    ModelOption,
    RetryOption,
    SchemaOption,
    agent_answerer_for,
    cache_settings,
    chat_model_factory,
    open_toolbox,
    run_context,
    tool_settings,
)
from saga_kgqa.cli.options import (
    AnswerShapeOption,
    DataOption,
    EmbeddingRuntimeOption,
    EndpointOption,
    MarsAugmentedQuestionOption,
    MarsExamplesOption,
    MarsHopLimitOption,
    MarsTopNOption,
    MarsTypologyOption,
    MarsVerificationOption,
    PatternRankingOption,
    ProfileOption,
    mars_switches,
)
from saga_kgqa.cli.output import fail, stdout
from saga_kgqa.errors import SagaError


def ablate_command(
    benchmark: BenchmarkArgument,
    gold: Annotated[Path, typer.Option(help="Gold store written by `saga eval gold`.")],
    out_dir: Annotated[Path, typer.Option(help="Directory of the per-variant predictions files.")],
    components: Annotated[
        bool, typer.Option(help="Run the component switches (SAGA's Table 5, or MARS's ablations with --method mars).")
    ] = True,
    coverage: Annotated[bool, typer.Option(help="Run the paper's Table 6 schema-coverage levels.")] = False,
    seed: Annotated[int, typer.Option(help="Seed of the schema-coverage masks.")] = 0,
    data_dir: DataDirOption = None,
    language: LanguageOption = "en",
    graph_name: GraphOption = None,
    data: DataOption = None,
    endpoint: EndpointOption = None,
    profile: ProfileOption = None,
    model: ModelOption = "",
    base_url: BaseUrlOption = None,
    max_steps: MaxStepsOption = 20,
    concurrency: ConcurrencyOption = 1,
    model_concurrency: ModelConcurrencyOption = None,
    retry_failed: RetryOption = False,
    limit: LimitOption = None,
    cache_dir: CacheDirOption = None,
    cache_mode: CacheModeOption = None,
    max_seconds: MaxSecondsOption = None,
    max_tokens: MaxTokensOption = None,
    dialect: DialectOption = None,
    schema_file: SchemaOption = None,
    entity_search: EntitySearchOption = "off",
    method: MethodOption = "saga",
    mars_top_n: MarsTopNOption = None,
    mars_hop_limit: MarsHopLimitOption = None,
    mars_examples: MarsExamplesOption = None,
    mars_typology: MarsTypologyOption = None,
    mars_verification: MarsVerificationOption = None,
    mars_augmented_question: MarsAugmentedQuestionOption = None,
    pattern_ranking: PatternRankingOption = None,
    embedding_runtime: EmbeddingRuntimeOption = None,
    answer_shape: AnswerShapeOption = None,
) -> None:
    """Run the agent once per ablation variant and print the variants side by side (markdown).

    ``--method saga`` runs the paper's Table 5 components; ``--method mars`` runs MARS's ablations
    (top-N, hop limit, examples, typology, verification) instead. ``--coverage`` adds Table 6 to either.
    """
    from saga_kgqa.eval.qa.ablation import ablation_table, ablation_variants, run_ablation
    from saga_kgqa.eval.qa.gold import GoldStore

    try:
        cache = cache_settings(endpoint, cache_dir, cache_mode, out_dir / "cache")
        questions = benchmark_questions(benchmark, data_dir, language, graph_name)[:limit]
        tools = tool_settings(benchmark, profile, dialect, schema_file, data_dir, entity_search)
        switches = mars_switches(
            mars_top_n,
            mars_hop_limit,
            mars_examples,
            mars_typology,
            mars_verification,
            mars_augmented_question,
            pattern_ranking,
            embedding_runtime,
        )
        switches = {**switches, "answer_shape": answer_shape}
        base = run_context(data, endpoint, profile, model, base_url, max_steps, tools, switches)
        base = dataclasses.replace(base, coverage_seed=seed)
        check_scoring_runtime()  # inputs before work: the gold, the graph, then one request to the model
        gold_store = GoldStore.load(gold)
        toolbox = open_toolbox(data, endpoint, profile, *cache, tools)
        factory = chat_model_factory(base, model_concurrency=model_concurrency)
        check_model_reachable(factory(base, "controller"))
        summaries = run_ablation(
            questions,
            gold_store,
            base,
            agent_answerer_for(
                factory,
                toolbox,
                max_seconds,
                max_tokens,
                method,
            ),
            out_dir,
            ablation_variants(components=components, coverage=coverage, method=method),
            config={
                "benchmark": benchmark,
                "language": language,
                "graph": graph_name,
                "limit": limit,
                "max_seconds": max_seconds,
                "max_tokens": max_tokens,
                "method": method,
                "answer_shape": answer_shape,
            },
            retry_failed=retry_failed,
            concurrency=concurrency,
            schema=toolbox.schema,
        )
    except SagaError as exc:
        fail(exc)
    stdout.print(ablation_table(summaries), markup=False, highlight=False)

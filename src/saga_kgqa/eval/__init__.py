"""Evaluation: benchmark loaders, the gold store, one scorer for every metric, runs, ablations, reports.

Rooms: ``loaders`` (benchmarks by name), ``qa`` (evaluating answers: gold, metrics, scorer, runs,
shards, ablations, reports) and ``grounding`` (the LLM-free measurements behind the grounding
benches: retention, detection, tokens, swaps, checks on real trajectories). ``datasets`` (the
complete offline graphs) and ``tokens`` (cl100k counts) serve both.

* :mod:`~saga_kgqa.benchmarks.questions` -- :class:`BenchmarkQuestion` (id, question, language, gold SPARQL,
  gold answers, kind), :class:`AnswerKind`.
* :mod:`~saga_kgqa.benchmarks.loaders` -- :func:`load_benchmark` by name, and one loader per format
  (QALD JSON, SPINACH lists, WikiWebQuestions, CWQ, GrailQA, WebQuestions, WebQSP, TEXT2SPARQL,
  Spider4SPARQL, LC-QuAD 2.0).
* :mod:`~saga_kgqa.eval.qa.gold` -- :class:`GoldStore`, :func:`build_gold_store`, :func:`drift_report`.
* :mod:`~saga_kgqa.eval.qa.metrics` and :mod:`~saga_kgqa.eval.qa.canonical` -- every metric, with its source;
  :mod:`~saga_kgqa.eval.qa.scorer` -- :func:`score_question`, :func:`summarise`.
* The run side lives below the faces that also use it (the TEXT2SPARQL server, MCP ``kg_ask``), in
  :mod:`saga_kgqa.runs`: :mod:`~saga_kgqa.runs.predictions` -- :class:`PredictionRecord`,
  :class:`TraceCounters`, :func:`summarise_traces`; :mod:`~saga_kgqa.runs.batch` -- :func:`run_benchmark`
  (resumable JSONL), :class:`GoldReplayAnswerer`; :mod:`~saga_kgqa.runs.agent_answerer` --
  :class:`AgentAnswerer` over the SAGA graph; :mod:`~saga_kgqa.runs.gold_runner` -- ``GOLD_LIMITS``,
  :class:`GoldRunner`.
* :mod:`~saga_kgqa.eval.qa.ablation` -- :func:`score_run`, :func:`run_ablation`, :func:`ablation_table`;
  :mod:`~saga_kgqa.eval.qa.report` -- markdown tables and PNG plots.
* :mod:`~saga_kgqa.eval.qa.spinach_output` -- SPINACH's released prediction files, re-scored.
"""

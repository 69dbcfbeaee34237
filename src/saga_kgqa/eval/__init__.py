"""Evaluation: benchmark loaders, the gold store, one scorer for every metric, runs, ablations, reports.

* :mod:`~saga_kgqa.eval.questions` -- :class:`BenchmarkQuestion` (id, question, language, gold SPARQL,
  gold answers, kind), :class:`AnswerKind`.
* :mod:`~saga_kgqa.eval.loaders` -- :func:`load_benchmark` by name, and one loader per format
  (QALD JSON, SPINACH lists, WikiWebQuestions, CWQ, GrailQA, WebQuestions, WebQSP, TEXT2SPARQL,
  Spider4SPARQL, LC-QuAD 2.0).
* :mod:`~saga_kgqa.eval.gold` -- :class:`GoldStore`, :func:`build_gold_store`, :func:`drift_report`.
* :mod:`~saga_kgqa.eval.metrics` and :mod:`~saga_kgqa.eval.canonical` -- every metric, with its source;
  :mod:`~saga_kgqa.eval.scorer` -- :func:`score_question`, :func:`summarise`.
* :mod:`~saga_kgqa.eval.predictions` -- :class:`PredictionRecord`, :class:`TraceCounters`, :func:`summarise_traces`.
* :mod:`~saga_kgqa.eval.runner` -- :func:`run_benchmark` (resumable JSONL), :class:`GoldReplayAnswerer`;
  :mod:`~saga_kgqa.eval.agent_answerer` -- :class:`AgentAnswerer` over the SAGA graph.
* :mod:`~saga_kgqa.eval.ablation` -- :func:`score_run`, :func:`run_ablation`, :func:`ablation_table`;
  :mod:`~saga_kgqa.eval.report` -- markdown tables and PNG plots.
* :mod:`~saga_kgqa.eval.spinach_output` -- SPINACH's released prediction files, re-scored.
"""

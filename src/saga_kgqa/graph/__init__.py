"""The controller: the LangGraph state machine that drives SAGA (builder, nodes, routing, finalize).

The public API is the package door, :mod:`saga_kgqa` (imported lazily from the composition root):

* :func:`build_graph` ``(*, model_factory=None, toolbox_factory=None, checkpointer=None,
  model_retry=None, name="saga")`` → the compiled graph (input :class:`~saga_kgqa.state.graph_state.InputState`,
  output :class:`~saga_kgqa.state.graph_state.OutputState`, context :class:`~saga_kgqa.config.context.SagaContext`).
* :func:`run_config` ``(context, *, thread_id=None, tags=None, **metadata)`` → the invoke config with an
  explicit recursion limit; :func:`recursion_limit` ``(max_steps)``.
* :data:`ModelFactory` ``(context, role) -> BaseChatModel`` with :data:`ModelRole` one of
  ``answer_type``, ``controller``, ``prune``, ``parse``; :func:`transient_provider_error` is the
  ``retry_on`` of the model nodes.
* :data:`ToolboxFactory` ``(context) -> SagaToolbox``; :class:`SagaToolbox` ``(graph, schema, *,
  vocabulary=None, caps=None, prefixes=None, extra_name_predicates=())``;
  :func:`toolbox_from_context` opens ``context.data`` / ``context.endpoint`` (the example graph by default).
* :func:`build_graph` and :func:`toolbox_from_context` open graphs, which is the composition root's job:
  they live in :mod:`saga_kgqa.app` (``app.graphs``, ``app.defaults``) and this door loads them on first
  use. Inside the package, :func:`saga_kgqa.graph.builder.build_graph` takes its factories explicitly.

* :func:`checkpoint_serde` ``()`` → the serializer a checkpointer needs to revive saga's records
  (``Action``, ``Step``, ``Answer``, Θ …) without warnings: a parent graph that embeds saga and keeps its
  own checkpointer compiles with ``parent.compile(checkpointer=InMemorySaver(serde=checkpoint_serde()))``
  (likewise ``SqliteSaver(conn, serde=checkpoint_serde())``).
* Without ``model_factory``, :func:`build_graph` reads the CLI's model settings (``SAGA_BASE_URL``,
  ``SAGA_MODEL``, ``SAGA_API_KEY`` / ``OPENAI_API_KEY``, ``SAGA_MODEL_FACTORY``) when a run first calls the model.

Typical use::

    graph = build_graph(model_factory=lambda ctx, role: ChatOpenAI(model=ctx.model, base_url=ctx.base_url))
    context = SagaContext.from_env(max_steps=15)
    output = graph.invoke({"question": "..."}, run_config(context), context=context)
"""

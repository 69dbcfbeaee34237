"""Configuration: every setting a run, a deployment or the operator gives, and one precedence rule.

The homes:

* :mod:`~saga_kgqa.config.context` -- :class:`SagaContext`, one run's settings (the LangGraph context):
  the graph it reads, the dialect, the step budget, the model, the tools' switches.
* :mod:`~saga_kgqa.config.settings` -- the deployment's paths (the data directory, the example graph).
* :mod:`~saga_kgqa.config.catalog` -- the operator's catalog (``catalog.toml``): named sources and models,
  and the caller's limits; :mod:`~saga_kgqa.config.caller` checks a caller's request against it.
* :mod:`~saga_kgqa.config.model_settings` -- :class:`ModelSettings`, which chat model a run calls and how
  (the chat models built from them are :mod:`saga_kgqa.models`'s).
* :mod:`~saga_kgqa.config.open_options` -- :class:`OpenOptions`, how a command opens a graph's tools (dialect,
  schema file, offline data directory, name search); the schema rule that reads them is
  :func:`saga_kgqa.app.open.open_schema`'s.
* Not here: the tools' caps (``ToolCaps``) stay with the tools in :mod:`saga_kgqa.tools.context`, because
  they are made of each tool's own caps (a tool declares its limits beside its code).

Precedence, the one rule for every home: a value given explicitly (a CLI option, a field of the request)
wins over the environment (``SAGA_<FIELD>``; for the model, ``SAGA_*`` then ``OPENAI_*``), which wins over
the defaults (:meth:`SagaContext.from_env <saga_kgqa.config.context.SagaContext.from_env>`,
:meth:`ModelSettings.resolve <saga_kgqa.config.model_settings.ModelSettings.resolve>`). Over the served faces the
operator's catalog bounds the caller first: a caller may set only the fields the catalog's limits allow,
and names sources and models from the catalog, never a URL, a path or a key
(:func:`~saga_kgqa.config.caller.check_caller_context`).
"""

"""Configuration: every setting a run, a deployment or the operator gives, and one precedence rule.

The homes:

* :mod:`~saga_kgqa.config.context` -- :class:`SagaContext`, one run's settings (the LangGraph context):
  the graph it reads, the dialect, the step budget, the model, the tools' switches.
* :mod:`~saga_kgqa.config.settings` -- the deployment's paths (the data directory, the example graph).
* :mod:`~saga_kgqa.config.catalog` -- the operator's catalog (``catalog.toml``): named sources and models,
  and the caller's limits; :mod:`~saga_kgqa.config.caller` checks a caller's request against it.
* The model's settings (``ModelSettings``) live with the model factory in :mod:`saga_kgqa.models`, the
  tools' caps (``ToolCaps``) with the tools in :mod:`saga_kgqa.tools.context` (they are made of each tool's
  own caps), how a command opens a graph (``OpenOptions``) in :mod:`saga_kgqa.app.open`.

Precedence: for a run's settings, a value given explicitly (a CLI option, a field of the request)
wins over the environment (``SAGA_<FIELD>``), which wins over the defaults
(:meth:`SagaContext.from_env <saga_kgqa.config.context.SagaContext.from_env>`). Over the served faces the
operator's catalog bounds the caller first: a caller may set only the fields the catalog's limits allow,
and names sources and models from the catalog, never a URL, a path or a key
(:func:`~saga_kgqa.config.caller.check_caller_context`).
"""

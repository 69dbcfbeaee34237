"""Factories for graphs that serve callers: the model and the toolbox come only from the operator's catalog.

``langgraph dev`` (``app/studio.py``), and every other face that takes run contexts from
outside, builds its graph with :class:`CallerModelFactory` and :class:`CallerToolboxFactory`.
Both check the caller's context first (:func:`~saga_kgqa.config.caller.check_caller_context`),
so a context carrying a URL, a path or an over-limit budget fails before any connection is
made, and a named source or model opens only what the operator configured.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from langchain_core.language_models import BaseChatModel

from saga_kgqa.app.sources import source_set, toolbox_for_source
from saga_kgqa.config.caller import CallerContextRefused, check_caller_context
from saga_kgqa.config.catalog import Catalog, ModelRecord
from saga_kgqa.config.context import SagaContext, resolve_context
from saga_kgqa.config.model_settings import ModelSettings
from saga_kgqa.models import chat_model_for, load_factory, prompt_role
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.tools.toolbox import SagaToolbox


class CallerToolboxFactory:
    """The toolbox of the source a caller's context names (the catalog's default when it names none)."""

    def __init__(self, catalog: Catalog) -> None:
        """Serve the sources of ``catalog``."""
        self.catalog = catalog

    def __call__(self, context: SagaContext) -> SagaToolbox:
        """Check the context, then open (once) the source it names.

        Raises:
            CallerContextRefused: The context sets infrastructure or exceeds a limit.
            UnknownName: The named source is not configured.
        """
        source, _ = check_caller_context(context, self.catalog)
        return toolbox_for_source(source)


class CallerSourcesFactory:
    """The catalog's named sources for the agent's source tools (opened on first use, shared by every run)."""

    def __init__(self, catalog: Catalog) -> None:
        """Serve the sources of ``catalog``; nothing is opened yet."""
        self.catalog = catalog
        self._sources: SourceSet | None = None
        self._lock = threading.Lock()

    def __call__(self, context: SagaContext) -> SourceSet | None:
        """The catalog's sources (a caller picks among them only by name, in the tools' arguments).

        A catalog built from the environment (no file: the example graph and ``SAGA_DATA``)
        has no named sources for the agent, so such a server answers over its one graph as before.
        """
        if self.catalog.path is None:
            return None
        with self._lock:
            if self._sources is None:
                self._sources = source_set(self.catalog)
            return self._sources


class CallerModelFactory:
    """The chat model a caller's context names, from the catalog's model records (else the environment's).

    A catalog without model records serves only the environment's model
    (``SAGA_MODEL``/``SAGA_BASE_URL``/``SAGA_API_KEY``, or ``SAGA_MODEL_FACTORY``); a caller
    selects it by leaving ``model`` unset.
    """

    def __init__(self, catalog: Catalog, *, environ: Mapping[str, str] | None = None) -> None:
        """Serve the models of ``catalog``; keys are read from ``environ`` (default ``os.environ``)."""
        self.catalog = catalog
        self._environ = environ
        self._models: dict[tuple[ModelSettings, str], BaseChatModel] = {}
        self._lock = threading.Lock()

    def settings_for(self, context: SagaContext) -> ModelSettings:
        """The settings of the model the context names.

        Raises:
            CallerContextRefused: The context sets infrastructure or exceeds a limit.
            UnknownName: The named model is not configured.
        """
        _, record = check_caller_context(context, self.catalog)
        if record is None:
            return ModelSettings.resolve(environ=self._environ)
        return _record_settings(record, self._environ)

    def __call__(self, context: object, role: str) -> BaseChatModel:
        """Return the chat model for ``role`` in a run with ``context``.

        Raises:
            CallerContextRefused: The context sets infrastructure or exceeds a limit.
            UnknownName: The named model is not configured.
            ModelNotConfigured: The operator configured no usable model.
        """
        if context is not None and not isinstance(context, SagaContext | Mapping):
            raise CallerContextRefused(f"unexpected run context {type(context).__name__}")
        run_context = resolve_context(context)
        settings = self.settings_for(run_context)
        if settings.factory:
            return load_factory(settings.factory)(run_context, role)
        resolved = prompt_role(role, run_context.tool_calling)
        with self._lock:
            model = self._models.get((settings, resolved.value))
            if model is None:
                model = chat_model_for(resolved, settings)
                self._models[(settings, resolved.value)] = model
        return model


def _record_settings(record: ModelRecord, environ: Mapping[str, str] | None) -> ModelSettings:
    # A record is complete by itself: nothing falls through to SAGA_BASE_URL, which could point elsewhere.
    return ModelSettings(
        model=record.model or None,
        base_url=record.base_url,
        api_key=record.api_key(environ),
        factory=record.factory,
    )

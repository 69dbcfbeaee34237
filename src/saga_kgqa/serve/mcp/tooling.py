"""The pieces every MCP tool is made of: a spec, the shared host state, and the result/error conventions.

A tool set is a function ``(ToolHost) -> list[ToolSpec]``; :data:`saga_kgqa.serve.mcp.server.TOOL_SETS`
lists them, so serving another helper's tools is one line there. Conventions every tool follows:

* bad arguments raise :class:`mcp.server.mcpserver.exceptions.ToolError` with a hint (the host
  sees an ``isError`` result it should not retry unchanged);
* the graph failing is an error *payload*: ``isError`` with the structured ``error`` field set,
  never a crash of the server;
* the text content (the observation the agent's own model reads) is capped at
  ``max_chars``, and the structured content's lists are cut to stay near it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from saga_kgqa.app.sources import source_set
from saga_kgqa.config.context import SagaContext
from saga_kgqa.errors import BackendError, ConfigurationError, SagaError, ToolInputError
from saga_kgqa.redaction import redact_url
from saga_kgqa.runs.persistence import CheckpointTarget, default_checkpoint_path
from saga_kgqa.serve.mcp.limits import CallGate
from saga_kgqa.serve.mcp.models import DEFAULT_MAX_CHARS, ToolOutput, UpstreamFailure
from saga_kgqa.serve.named_sources import NamedSources, UnknownSource
from saga_kgqa.serve.sessions import SessionState, SessionStore
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.text_safety import cap_block, clean_structure, graph_text, outside_value
from saga_kgqa.tools.failure_text import failure_sentence
from saga_kgqa.tools.toolbox import ToolView

logger = logging.getLogger(__name__)

#: Up to this many sources, each tool's description lists them; beyond, it points to the catalog.
LISTED_SOURCES = 5

#: The resource that lists the catalog (see :mod:`saga_kgqa.serve.mcp.content`).
CATALOG_URI = "saga://catalog"

#: The line every description ends with, so a host knows what a failure means.
RETRY_NOTE = (
    "On an error result: a tool error (bad argument) will fail again unchanged, fix the argument; "
    "an error payload with retryable=false will fail again too; only retryable=true may succeed later."
)


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool: its name, wording, behaviour hints and handler.

    Attributes:
        name: The tool name hosts call.
        title: A short human title.
        description: What it does, the valid values, what comes back and when not to retry.
        handler: The async function MCPServer introspects (typed parameters, a ``Context`` one,
            and an ``Annotated[CallToolResult, OutputModel]`` return).
        read_only: ``readOnlyHint``.
        open_world: ``openWorldHint``: it reaches beyond the server (a remote endpoint, a model).
    """

    name: str
    title: str
    description: str
    handler: Callable[..., Awaitable[CallToolResult]]
    read_only: bool = True
    open_world: bool = False

    def annotations(self) -> ToolAnnotations:
        """The MCP tool annotations."""
        return ToolAnnotations(
            title=self.title,
            read_only_hint=self.read_only,
            destructive_hint=False,
            idempotent_hint=self.read_only,
            open_world_hint=self.open_world,
        )


@dataclass
class ToolHost:
    """What the tools of one server share: the named sources, per-session state, switches and the caps.

    Attributes:
        checkpoints: Where ``kg_ask`` runs are checkpointed (resumable by their run id).
        progress_s: Longest pause between two progress notifications of a long call.
        gate: Bounds on concurrent calls per session and agent runs per server.
    """

    sources: NamedSources
    context: SagaContext = field(default_factory=SagaContext.from_env)
    max_chars: int = DEFAULT_MAX_CHARS
    with_model: bool = False
    ask_seconds: float = 180.0
    sessions: SessionStore = field(default_factory=SessionStore)
    checkpoints: CheckpointTarget = field(default_factory=default_checkpoint_path)
    progress_s: float = 5.0
    gate: CallGate = field(default_factory=CallGate)
    _source_set: SourceSet | None = field(default=None, init=False, repr=False)
    _source_set_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def source_set(self) -> SourceSet:
        """The server's one set of opened sources (each opened, surveyed and indexed on first use)."""
        with self._source_set_lock:
            if self._source_set is None:
                self._source_set = source_set(self.sources.catalog)
            return self._source_set

    def session(self, ctx: Context[Any, Any]) -> SessionState:
        """The calling session's state (one per MCP session; one for a stdio server)."""
        return self.sessions.get(session_key(ctx))

    def source_field(self) -> Any:
        """The field of a tool's optional ``source`` parameter: the configured names, listed in its schema."""
        names = self.sources.names
        listed = f"one of: {', '.join(names)}" if len(names) <= LISTED_SOURCES else "see kg_catalog_list"
        doc = f"Source name, {listed} (default {self.sources.default})."
        return Field(description=doc, json_schema_extra={"enum": [*names, None]})

    def source_listing(self) -> str:
        """The configured sources, for a tool's description: listed when few, else where to find them.

        Every tool's description carries it, so a long catalog listed in each made ``tools/list``
        tens of kilobytes; past a handful, the catalog tool and resource hold the listing.
        """
        if len(self.sources.names) <= LISTED_SOURCES:
            return f"Sources:\n{self.sources.describe()}"
        return f"{len(self.sources.names)} sources: see kg_catalog_list or the resource {CATALOG_URI}."

    def run_context(self) -> SagaContext:
        """The server's switches as a caller-style run context: no infrastructure field set (names only)."""
        return SagaContext(
            type_filter=self.context.type_filter,
            persistent_type_state=self.context.persistent_type_state,
            max_steps=self.context.max_steps,
        )

    def source_name(self, name: str | None) -> str:
        """The resolved source name.

        Raises:
            ToolError: Not a configured source (the message lists the valid names).
        """
        try:
            return self.sources.get(name).name
        except UnknownSource as exc:
            raise ToolError(f"{exc.message}. Hint: pass one of {', '.join(self.sources.names)} or omit it.") from None

    async def view(self, source: str) -> ToolView:
        """The tools of a source under the server's switches (opened in a worker thread on first use).

        Raises:
            ToolError: The source cannot be opened (a configuration problem the caller cannot fix).
        """
        try:
            toolbox = await anyio.to_thread.run_sync(self.sources.toolbox, source)
        except (ConfigurationError, BackendError) as exc:
            # The message may name the operator's paths or URLs: it goes to the server's log, not the caller.
            logger.warning("source %r cannot be opened: %s", source, exc.message)
            raise ToolError(
                f"source {source!r} cannot be opened ({type(exc).__name__}; the server's log says why); "
                "retrying will not help."
            ) from None
        return toolbox.view(self.context)

    def result(self, text: str, output: ToolOutput, *, is_error: bool = False) -> CallToolResult:
        """The tool result: capped text (the source's location redacted) beside the structured output.

        Both channels pass the one sanitiser (:func:`outside_value`): graph literals, endpoint
        bodies and search hits reach a host's model through the structured content too.
        """
        if output.error is not None:
            output.error.message = self.redact(output.error.message, output.source)
        shown = cap_block(outside_value(self.redact(text, output.source), None), self.max_chars)
        # The structured channel names sources the same way: a survey's coverage line, say, quotes the
        # endpoint's own failure message (host, port and path), which the text already replaced by the name.
        structured = _redact_strings(output.model_dump(mode="json"), lambda value: self.redact(value, output.source))
        return CallToolResult(
            content=[TextContent(type="text", text=shown)],
            structured_content=clean_structure(structured),
            is_error=is_error,
        )

    def redact(self, text: str, source: str) -> str:
        """``text`` with the source's endpoint URL or file paths replaced by its name (callers see names only)."""
        record = self.sources.get(source)
        # Messages name an endpoint by its redacted URL (credentials hidden); callers see the name only.
        places = [record.endpoint, redact_url(record.endpoint)] if record.endpoint else []
        places += [str(path) for path in (*record.data, record.store) if path is not None]
        for place in sorted(places, key=len, reverse=True):
            text = text.replace(place, f"source {source!r}")
        return text

    def failure(self, exc: SagaError, output: ToolOutput) -> CallToolResult:
        """An error payload for the graph failing (or raise a tool error for a bad argument)."""
        if isinstance(exc, ToolInputError):
            raise ToolError(f"invalid argument: {exc.message}. Hint: {argument_hint(exc.message)}") from None
        message = graph_text(self.redact(exc.message, output.source), 500)
        output.error = UpstreamFailure(
            kind=type(exc).__name__, message=message, query_at_fault=exc.query_at_fault, retryable=exc.retryable
        )
        return self.result(failure_sentence(exc, message, subject="call"), output, is_error=True)


def _redact_strings(value: Any, redact: Callable[[str], str]) -> Any:
    """``value`` (JSON-like) with ``redact`` applied to every string in it."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: _redact_strings(item, redact) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact_strings(item, redact) for item in value]
    return value


def session_key(ctx: Context[Any, Any]) -> str | None:
    """The key of the caller's session: its HTTP session id, one key for stdio, ``None`` when stateless."""
    headers = ctx.headers
    if headers is None:
        return "stdio"
    return headers.get("mcp-session-id")


def argument_hint(message: str) -> str:
    """A short hint for a bad tool argument."""
    lowered = message.lower()
    if "same source" in lowered:  # a bridge of a source with itself (the source layer's rule)
        return "kg_catalog_list names the sources"
    if "iri" in lowered or "prefix" in lowered or "name" in lowered:
        return "use an id exactly as search or lookup printed it (prefix:local or <http://...>)"
    return "check the argument against the tool's description"

"""A callback handler that records runs as LangSmith's tracer receives them: name, tags, metadata."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler


class Recorder(BaseCallbackHandler):
    """Records the name, tags and metadata of every run, as LangSmith's tracer receives them."""

    def __init__(self) -> None:
        self.runs: list[tuple[str, list[str], dict[str, Any]]] = []
        #: Tool runs (``on_tool_start``) by name, with the inputs LangSmith records for them.
        self.tool_inputs: list[tuple[str, dict[str, Any] | None]] = []

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        self.runs.append((name or "", list(tags or []), dict(metadata or {})))

    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        self.runs.append((name or "", list(tags or []), dict(metadata or {})))
        self.tool_inputs.append((name or "", inputs))

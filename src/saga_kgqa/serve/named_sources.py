"""The sources a server offers, by name: the only way an MCP client, an HTTP caller or the web page picks a graph.

A source name maps to the operator's configuration (data files, a store or an endpoint,
its dialect and schema index); callers never pass a path or a URL. Opening a source
builds its schema index once; the toolbox is then shared by every call and session.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from saga_kgqa.context import SagaContext
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.graph.defaults import toolbox_from_context
from saga_kgqa.graph.toolbox import SagaToolbox

#: The name of the shipped example graph, the source offered when the operator configured none.
EXAMPLE_SOURCE = "example"


class UnknownSource(ConfigurationError):
    """A caller named a source the operator did not configure."""


@dataclass(frozen=True)
class NamedSource:
    """One configured source: its name, the run context that opens it, and a line saying what it holds."""

    name: str
    context: SagaContext
    description: str = ""

    @property
    def remote(self) -> bool:
        """True for a SPARQL endpoint (an open world), false for local files or a store."""
        return self.context.endpoint is not None


class NamedSources:
    """The configured sources, the default one, and their toolboxes."""

    def __init__(self, sources: Mapping[str, NamedSource], default: str) -> None:
        """Offer ``sources``; ``default`` answers calls that name none.

        Raises:
            ConfigurationError: No sources, or ``default`` is not one of them.
        """
        if not sources:
            raise ConfigurationError("no sources are configured")
        if default not in sources:
            raise UnknownSource(f"default source {default!r} is not configured (known: {', '.join(sorted(sources))})")
        self._sources = dict(sources)
        self.default = default

    @classmethod
    def example(cls, context: SagaContext | None = None) -> NamedSources:
        """Only the graph the environment names (``SAGA_DATA``/``SAGA_ENDPOINT``), else the example graph."""
        ctx = context or SagaContext.from_env()
        source = NamedSource(EXAMPLE_SOURCE, ctx, "the graph of SAGA_DATA/SAGA_ENDPOINT, else the example graph")
        return cls({EXAMPLE_SOURCE: source}, EXAMPLE_SOURCE)

    @property
    def names(self) -> list[str]:
        """The source names, sorted."""
        return sorted(self._sources)

    @property
    def any_remote(self) -> bool:
        """True when a source is a remote endpoint."""
        return any(source.remote for source in self._sources.values())

    def get(self, name: str | None) -> NamedSource:
        """The source called ``name`` (the default when ``None``).

        Raises:
            UnknownSource: No source has that name (the message lists the known ones).
        """
        key = self.default if name is None or name == "" else name
        found = self._sources.get(key)
        if found is None:
            raise UnknownSource(f"unknown source {key!r}; known sources: {', '.join(self.names)}")
        return found

    def toolbox(self, name: str | None) -> SagaToolbox:
        """The toolbox of a source, opened on first use.

        Raises:
            UnknownSource: No source has that name.
            ConfigurationError: The source's configuration is unusable.
            BackendError: The graph failed while its schema index was built.
        """
        return toolbox_from_context(self.get(name).context)

    def describe(self) -> str:
        """One line per source, for tool descriptions."""
        lines = []
        for name in self.names:
            source = self._sources[name]
            suffix = " (default)" if name == self.default else ""
            lines.append(f"- {name}{suffix}: {source.description}" if source.description else f"- {name}{suffix}")
        return "\n".join(lines)

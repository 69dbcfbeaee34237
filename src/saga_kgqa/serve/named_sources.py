"""The sources a server offers, by name: the only way an MCP client, an HTTP caller or the web page picks a graph.

A thin view of the operator's :class:`~saga_kgqa.config.catalog.Catalog` for the serving
faces: names, the default, a line per source for tool descriptions, and the toolbox (opened
once per source for the life of the process). Callers never pass a path or a URL.
"""

from __future__ import annotations

from saga_kgqa.app.sources import toolbox_for_source
from saga_kgqa.config.catalog import Catalog, SourceRecord, UnknownName
from saga_kgqa.tools.toolbox import SagaToolbox

#: Re-exported: the error of a name the operator did not configure.
UnknownSource = UnknownName


class NamedSources:
    """The catalog's sources, the default one, and their toolboxes."""

    def __init__(self, catalog: Catalog) -> None:
        """Offer the sources of ``catalog``."""
        self.catalog = catalog

    @property
    def default(self) -> str:
        """The source of a call that names none."""
        return self.catalog.default_source

    @property
    def names(self) -> list[str]:
        """The source names, sorted."""
        return sorted(self.catalog.sources)

    @property
    def any_remote(self) -> bool:
        """True when a source is a remote endpoint (the tools then reach an open world)."""
        return any(source.endpoint is not None for source in self.catalog.sources.values())

    def get(self, name: str | None) -> SourceRecord:
        """The source called ``name`` (the default when ``None`` or empty).

        Raises:
            UnknownName: No source has that name (the message lists the known ones).
        """
        return self.catalog.source(name)

    def toolbox(self, name: str | None) -> SagaToolbox:
        """The toolbox of a source, opened on first use.

        Raises:
            UnknownName: No source has that name.
            ConfigurationError: The source's configuration is unusable.
            BackendError: The graph failed while its schema index was built.
        """
        return toolbox_for_source(self.get(name))

    def describe(self) -> str:
        """One line per source (name, title, description; never its location), for tool descriptions."""
        lines = []
        for name in self.names:
            source = self.catalog.sources[name]
            about = " — ".join(part for part in (source.title, source.description) if part)
            suffix = " (default)" if name == self.default else ""
            lines.append(f"- {name}{suffix}: {about}" if about else f"- {name}{suffix}")
        return "\n".join(lines)

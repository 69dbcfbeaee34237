"""Keep a store's system graphs out of every query when the operator named no default graph.

Virtuoso answers a query without ``default-graph-uri`` over the union of all its graphs,
its own bookkeeping included (virtrdf: quad maps, LDP, the service description: about
2,500 triples on a fresh 7.2.5), so counts, a schema index, a search and a survey all
see them. When the operator configured default graphs they are sent with every query
and nothing else is needed. When not, :class:`DataGraphScope` asks the store once for
its graphs, drops the system ones (``profile.system_graph_prefixes``) and sends the rest
as default graphs from then on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace

from saga_kgqa.errors import ConfigurationError, QueryTimeout
from saga_kgqa.kg.core.backend import ExecutionLimits, KGBackend
from saga_kgqa.kg.core.profiles import EndpointProfile, is_system_graph
from saga_kgqa.kg.core.query import CheckedQuery, from_template
from saga_kgqa.kg.core.result import QueryResult

#: Lists the graphs. Grouped, not DISTINCT: Virtuoso 7.2.5 answers this form from its
#: graph index (0.05 s on CK25) and scans every quad for the DISTINCT one (3.5 s).
GRAPHS_QUERY = "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g"
_GRAPHS_LIMIT = 10_000
_GRAPHS_DEADLINE_S = 30.0


#: Makes the backend of one endpoint for a profile (whose graphs it sends with every query).
EndpointFactory = Callable[[EndpointProfile], KGBackend]


class DataGraphScope:
    """A backend whose queries see the store's data graphs only, found on first use."""

    def __init__(self, factory: EndpointFactory, profile: EndpointProfile) -> None:
        """Wrap the endpoint that ``factory`` makes; nothing is sent before the first query.

        Args:
            factory: Makes the endpoint for a profile (called again with the graphs found).
            profile: The profile; its ``system_graph_prefixes`` name the graphs to leave out.
        """
        self._factory = factory
        self._inner = factory(profile)
        self._unscoped_id = self._inner.endpoint_id
        self._scoped = False
        self._lock = threading.Lock()
        self.data_graphs: tuple[str, ...] = ()

    @property
    def endpoint_id(self) -> str:
        """The unscoped endpoint's id: "all data graphs" is what it answers over, found or not."""
        return self._unscoped_id

    @property
    def profile(self) -> EndpointProfile:
        """The profile in force (with the data graphs once they are known)."""
        return self._inner.profile

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        """Find the data graphs if not yet done, then run the query over them.

        Raises:
            ConfigurationError: The graphs could not be listed in time; the operator must name them.
            BackendError: Listing the graphs or running the query failed.
        """
        self._scope()
        return self._inner.execute(query, limits)

    def close(self) -> None:
        """Close the endpoint."""
        self._inner.close()

    def _scope(self) -> None:
        with self._lock:
            if self._scoped:
                return
            try:
                listed = self._inner.execute(
                    from_template(GRAPHS_QUERY, limit=None),
                    ExecutionLimits(deadline_s=_GRAPHS_DEADLINE_S, max_rows=_GRAPHS_LIMIT),
                )
            except QueryTimeout as exc:
                raise ConfigurationError(
                    f"listing the graphs of {self._unscoped_id} to leave out its system graphs took too long "
                    f"({exc.message}); configure the endpoint's default graphs"
                ) from exc
            if not listed.complete:
                raise ConfigurationError(
                    f"{self._unscoped_id} returned a partial list of its graphs; configure its default graphs"
                )
            profile = self._inner.profile
            graphs = sorted(
                {row["g"].value for row in listed.rows if "g" in row and not is_system_graph(profile, row["g"].value)}
            )
            self.data_graphs = tuple(graphs)
            if graphs:
                # Same URL, so the same shared gate: the swap changes only the parameters sent.
                self._inner.close()
                self._inner = self._factory(replace(profile, default_graphs=self.data_graphs))
            self._scoped = True

"""The one entry point every layer uses to query a graph: guard first, then the backend.

Tools, schema builders and the evaluation harness hold a :class:`KnowledgeGraph`, never a
bare backend, so no query text reaches a store without passing
:class:`~saga_kgqa.kg.guard.query_guard.QueryGuard` (docs/faults.md section 3: the embedded store
follows SERVICE IRIs too). Queries the project builds from escaped templates are already
:class:`~saga_kgqa.kg.core.query.CheckedQuery` objects and go through :meth:`KnowledgeGraph.run`.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from saga_kgqa.closing import Closing
from saga_kgqa.errors import QueryTimeout
from saga_kgqa.kg.core.backend import ExecutionLimits, KGBackend
from saga_kgqa.kg.core.profiles import EndpointProfile
from saga_kgqa.kg.core.query import CheckedQuery, from_template
from saga_kgqa.kg.core.result import QueryResult

if TYPE_CHECKING:
    # The guard pulls in rdflib's SPARQL parser (~0.3 s): built on first use, so commands
    # that only run project templates (saga lookup) never pay for it.
    from saga_kgqa.kg.guard.label_guard import LabelRewritingGuard
    from saga_kgqa.kg.guard.query_guard import QueryGuard

#: Backends whose ``endpoint_id`` starts with this are local stores (the embedded one):
#: their own named graphs are theirs to query with FROM; a remote endpoint's are not.
LOCAL_STORE_PREFIX = "embedded:"
_MAX_NAMED_GRAPHS = 10_000
_NAMED_GRAPHS = f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ }} }} LIMIT {_MAX_NAMED_GRAPHS}"


@runtime_checkable
class _Prestartable(Protocol):
    """A backend with a slow first start (the embedded store's worker) that can begin early."""

    def prestart(self) -> None:
        """Begin starting without waiting and without sending any query."""


class KnowledgeGraph(Closing):
    """A backend behind the read-only guard."""

    def __init__(
        self,
        backend: KGBackend,
        *,
        guard: QueryGuard | None = None,
        limits: ExecutionLimits | None = None,
    ) -> None:
        """Wrap a backend.

        Args:
            backend: The store or endpoint that runs checked queries.
            guard: The guard to use; by default one built from the backend's profile.
            limits: Default execution limits for every query (:class:`ExecutionLimits` defaults if omitted).
        """
        self._backend = backend
        self._own_graphs: frozenset[str] | None = None
        self._guard: QueryGuard | None = guard
        self._label_guard: LabelRewritingGuard | None = None
        self._guards_ready = False
        self._limits = limits or ExecutionLimits()

    def _checkers(self) -> tuple[QueryGuard, LabelRewritingGuard | None]:
        """The guard and the label-rewriting guard, built on first use."""
        if not self._guards_ready:
            from saga_kgqa.kg.guard.label_guard import LabelRewritingGuard, runs_label_service
            from saga_kgqa.kg.guard.query_guard import QueryGuard

            if self._guard is None:
                local = self._backend.endpoint_id.startswith(LOCAL_STORE_PREFIX)
                own = self._named_graphs if local else frozenset[str]()
                self._guard = QueryGuard(self._backend.profile, allowed_graphs=own)
            # Off WDQS, Wikidata's label service is rewritten into plain patterns (and checked again).
            self._label_guard = None if runs_label_service(self._backend) else LabelRewritingGuard(self._guard)
            self._guards_ready = True
        assert self._guard is not None
        return self._guard, self._label_guard

    def _named_graphs(self) -> frozenset[str]:
        """A local store's own named graphs, which FROM / FROM NAMED may name (read once)."""
        if self._own_graphs is None:
            result = self._backend.execute(from_template(_NAMED_GRAPHS, limit=_MAX_NAMED_GRAPHS), self._limits)
            self._own_graphs = frozenset(row["g"].value for row in result.rows if "g" in row)
        return self._own_graphs

    @property
    def profile(self) -> EndpointProfile:
        """The backend's endpoint profile."""
        return self._backend.profile

    @property
    def guard(self) -> QueryGuard:
        """The guard every text query passes."""
        return self._checkers()[0]

    @property
    def endpoint_id(self) -> str:
        """The backend's stable identifier."""
        return self._backend.endpoint_id

    @property
    def local_store_dir(self) -> Path | None:
        """The on-disk directory of an embedded store (its name index is streamed from it); else ``None``."""
        found = getattr(self._backend, "store_dir", None)
        return found if isinstance(found, Path) else None

    def check(self, text: str | bytes, *, default_limit: int | None = None) -> CheckedQuery:
        """Run the guard alone (no store call), e.g. to validate a query before showing it.

        Raises:
            QueryRejected: The guard refused the query.
        """
        guard, label_guard = self._checkers()
        if label_guard is not None:
            return label_guard.check(text, default_limit=default_limit)
        return guard.check(text, default_limit=default_limit)

    def query(self, text: str | bytes, limits: ExecutionLimits | None = None) -> QueryResult:
        """Check query text with the guard, then run it.

        Args:
            text: SPARQL written by a model or a user.
            limits: Caps for this call; the facade's defaults when omitted.

        Returns:
            The typed result.

        Raises:
            QueryRejected: The guard refused the query; nothing was sent.
            QueryTimeout: The guard's check alone used the whole deadline; nothing was sent.
            BackendError: The backend failed (see :mod:`saga_kgqa.errors`).
        """
        limits = limits or self._limits
        started = time.monotonic()
        if isinstance(self._backend, _Prestartable):
            self._backend.prestart()  # its start overlaps the guard's check; no query is sent before it
        # Inject one row more than the row cap, so a cut answer is reported as truncated.
        checked = self.check(text, default_limit=limits.max_rows + 1)
        # The guard's own time is part of the query's deadline: the backend gets what is left.
        left = limits.deadline_s - (time.monotonic() - started)
        if left <= 0:
            raise QueryTimeout(
                f"the read-only guard used the whole deadline of {limits.deadline_s:g} s checking the query; "
                "simplify it"
            )
        return self.run(checked, replace(limits, deadline_s=left))

    def run(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        """Run a query that is already checked (guard output or a project template).

        Raises:
            BackendError: The backend failed.
        """
        result = self._backend.execute(query, limits or self._limits)
        # What was rewritten so this store could run it travels with the answer (and into the trace).
        result.notes.extend(f"rewritten for this {self.profile.name} store: {line}" for line in query.rewrites)
        if query.limit_capped and query.limit is not None and len(result.rows) >= query.limit:
            # The guard's LIMIT, not the query's author, cut the answer: say so.
            result.truncated = True
            result.notes.append(f"the read-only guard capped the query at LIMIT {query.limit}; more rows may exist")
        return result

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        """:meth:`run` under the backend protocol's name: a graph serves where a backend is read (schema builders).

        Raises:
            SagaError: As :meth:`run`.
        """
        return self.run(query, limits)

    def close(self) -> None:
        """Close the backend."""
        self._backend.close()

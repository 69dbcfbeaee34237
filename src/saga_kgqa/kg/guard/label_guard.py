"""The guard for stores without Wikidata's label service: check, rewrite the service away, check again.

Only WDQS runs ``SERVICE wikibase:label`` itself. In front of any other store (the
embedded one with a Wikidata dump, Virtuoso, QLever, Fuseki) the query is first checked
with the label service allowed, then every label-service block is replaced by plain
patterns (:mod:`saga_kgqa.kg.guard.label_service`), and the result is checked again by a guard
that allows no label service, so the text a store receives passed the guard as it is.
"""

from __future__ import annotations

from dataclasses import replace

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.backend import KGBackend
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.guard.label_service import (
    LABEL_SERVICE_IRI,
    LabelServiceError,
    rewrite_label_service,
    uses_label_service,
)
from saga_kgqa.kg.guard.portability import port_query
from saga_kgqa.kg.guard.query_guard import QueryGuard

#: Profiles whose remote endpoints answer the label service themselves.
NATIVE_LABEL_PROFILES = frozenset({"wikidata"})


def runs_label_service(backend: KGBackend) -> bool:
    """Whether ``backend`` answers ``SERVICE wikibase:label`` itself (a WDQS endpoint)."""
    return backend.endpoint_id.startswith("remote:") and backend.profile.name in NATIVE_LABEL_PROFILES


class LabelRewritingGuard:
    """Checks like :class:`QueryGuard`, with the label service rewritten into plain patterns."""

    def __init__(self, guard: QueryGuard) -> None:
        """Derive the two guards from ``guard`` (its profile and policy)."""
        profile = guard.profile
        self._plain = guard
        # The derived guards keep everything of the original but the label service (its graphs too).
        self._outer = QueryGuard(
            replace(profile, service_allowlist=profile.service_allowlist | {LABEL_SERVICE_IRI}),
            guard.policy,
            allowed_graphs=guard.allowed_graphs_source,
        )
        self._inner = QueryGuard(
            replace(profile, service_allowlist=profile.service_allowlist - {LABEL_SERVICE_IRI}),
            guard.policy,
            allowed_graphs=guard.allowed_graphs_source,
        )
        self._prefixes = dict(profile.prefixes)

    def check(self, text: str | bytes, *, default_limit: int | None = None) -> CheckedQuery:
        """Port ``text`` to this store, check it; when it uses the label service, check its rewritten form too.

        Every rewrite (:func:`~saga_kgqa.kg.guard.portability.port_query`, the label service)
        is listed in the checked query's ``rewrites``; ``source_text`` stays the text as written.

        Raises:
            QueryRejected: Either check refused it, a construct this store cannot run was
                named (reason ``not_portable``), or a label-service block has content the
                rewrite does not understand (reason ``service``).
        """
        raw = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
        if len(raw) > self._plain.policy.max_chars:
            return self._plain.check(text, default_limit=default_limit)  # refused for its size, unread
        ported = port_query(raw, self._plain.profile)
        checked = self._check_labels(ported.text, default_limit)
        rewrites = ported.rewrites + checked.rewrites
        return replace(checked, source_text=raw, rewrites=rewrites) if rewrites else checked

    def _check_labels(self, raw: str, default_limit: int | None) -> CheckedQuery:
        text = raw
        if "service" not in raw.lower() and "\\u" not in raw.lower():
            # Without these letters (or a \u escape that could spell them) no label service can be
            # written, and the two guards agree: the plain one decides alone.
            return self._plain.check(text, default_limit=default_limit)
        first = self._outer.check(text, default_limit=default_limit)
        if "service" not in first.text.lower():
            return first  # the two guards differ in the label service only
        try:
            rewritten = (
                rewrite_label_service(first.text, self._prefixes)
                if uses_label_service(first.text, self._prefixes)
                else first.text
            )
        except LabelServiceError as exc:
            raise QueryRejected(
                f"this store has no label service and the SERVICE wikibase:label block could not be rewritten "
                f'({exc}); bind labels with rdfs:label and FILTER(LANG(...) = "en") instead',
                reason="service",
            ) from None
        # Always checked again, so a block the rewrite missed is refused, never sent. The
        # LIMIT is already in the text; the second check keeps it.
        again = self._inner.check(rewritten, default_limit=default_limit)
        note = (
            ("SERVICE wikibase:label became OPTIONAL rdfs:label / schema:description / skos:altLabel patterns",)
            if rewritten != first.text
            else ()
        )
        return replace(
            again, source_text=first.source_text, limit=first.limit, limit_capped=first.limit_capped, rewrites=note
        )

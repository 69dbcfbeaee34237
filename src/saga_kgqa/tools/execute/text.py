"""The sentences of the execute tool's observations: headers, [BLOCKED] explanations, typed errors.

Everything here ends up in a model's context, so every piece of graph or server text
passes :mod:`saga_kgqa.text_safety`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from saga_kgqa.errors import BackendError, EndpointThrottled, QueryRejected, QueryTimeout
from saga_kgqa.state import TypeState
from saga_kgqa.text_safety import graph_text
from saga_kgqa.tools.execute.models import ExecuteError, ExecuteOutcome
from saga_kgqa.tools.render import cap_bytes, iri_text

if TYPE_CHECKING:
    from saga_kgqa.tools.execute.type_check_models import BlockedPattern

_MAX_TYPES_SHOWN = 5
_SOURCE_WORDS = {
    "formal": "declared in the ontology",
    "induced": "induced from sampled data",
    "surveyed": "surveyed from the endpoint",
}
_ORIGIN_WORDS = {
    "graph": "declared in the graph",
    "query": "from a type pattern in this query",
    "type_state": "from earlier steps",
    "literal": "the literal's datatype",
    "range": "the range of the path step before it",
}


def names(iris: Iterable[str], prefixes: Mapping[str, str], limit: int = _MAX_TYPES_SHOWN) -> str:
    """A few IRIs, shortened and cleaned, joined with commas (``+N more`` past the limit)."""
    ordered = sorted(iris)
    shown = ", ".join(iri_text(i, prefixes) for i in ordered[:limit])
    return shown + (f" (+{len(ordered) - limit} more)" if len(ordered) > limit else "")


def _cut(text: str, limit: int) -> str:
    """Shorten text that is already safe (built from cleaned terms)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def blocked_text(blocked: Sequence[BlockedPattern], prefixes: Mapping[str, str]) -> str:
    """The [BLOCKED] observation: each conflicting pattern with the types and the constraint."""
    count = len(blocked)
    lines = [
        f"[BLOCKED] Not run: {count} triple pattern{'s' if count > 1 else ''} "
        f"contradict{'' if count > 1 else 's'} the known types."
    ]
    for item in blocked:
        prop = iri_text(item.property_iri, prefixes)
        role = "a subject" if item.side == "subject" else "an object"
        side_name = "domain" if item.side == "subject" else "range"
        source = _SOURCE_WORDS.get(item.constraint_source, item.constraint_source)
        line = (
            f"- `{_cut(item.pattern, 300)}`: {_cut(item.term, 200)} has type "
            f"{names(item.term_types, prefixes)} ({_ORIGIN_WORDS[item.types_from]}), but {prop} expects {role} "
            f"of type {names(item.constraint, prefixes)} ({side_name} {source})."
        )
        if item.verified:
            line += " The graph has no such triple either."
        lines.append(line)
    fix = "a property whose domain fits the subject's type"
    if any(item.side == "object" for item in blocked):
        fix += " (and whose range fits the object)"
    lines.append(f"Use {fix}, or a subject of the right type.")
    return "\n".join(lines)


def types_seen_text(per_variable: Mapping[str, frozenset[str]], prefixes: Mapping[str, str]) -> str:
    """One line with the types seen among the returned entities, per variable."""
    parts = [f"?{graph_text(v, 40)}: {names(types, prefixes)}" for v, types in per_variable.items() if types]
    return "Types of returned entities: " + "; ".join(parts) if parts else ""


def error_text(error: ExecuteError, *, timed_out: bool) -> str:
    """The observation of a rejected or failed query: what, whose fault, and whether to retry."""
    message = graph_text(error.message, 1500)
    if error.kind == "QueryRejected":
        return f"[REJECTED] {message} Nothing was sent to the graph."
    head = f"[ERROR] {error.kind}: {message}"
    if error.query_at_fault:
        if timed_out:
            advice = (
                "The query is at fault: it is too costly. Narrow it (anchor it on a known entity, "
                "add a LIMIT, avoid long property paths) before sending it again."
            )
        else:
            advice = "The query is at fault: fix it; sending it unchanged will fail again."
    elif error.retryable:
        wait = f" after {error.retry_after_s:g} s" if error.retry_after_s is not None else " later"
        advice = f"Not the query's fault: retrying the same query{wait} may help; do not rewrite it for this."
    else:
        advice = "Not the query's fault, and retrying will not help: the graph cannot be used now."
    return f"{head} {advice}"


def failure_outcome(
    status: Literal["rejected", "error"],
    exc: BackendError,
    *,
    query: str,
    max_bytes: int,
    theta_delta: TypeState | None = None,
) -> ExecuteOutcome:
    """The outcome of a query the guard rejected or the store failed on, with a typed error."""
    error = ExecuteError(
        kind=type(exc).__name__,
        message=exc.message,
        reason=exc.reason if isinstance(exc, QueryRejected) else None,
        query_at_fault=exc.query_at_fault,
        retryable=exc.retryable,
        retry_after_s=exc.retry_after_s if isinstance(exc, EndpointThrottled) else None,
    )
    text = error_text(error, timed_out=isinstance(exc, QueryTimeout))
    return ExecuteOutcome(
        status=status,
        text=cap_bytes(text, max_bytes),
        query=query,
        error=error,
        theta_delta=theta_delta or TypeState(),
    )


def stage_timeout_outcome(
    stage: str,
    total_s: float,
    *,
    query: str,
    max_bytes: int,
    theta_delta: TypeState | None = None,
) -> ExecuteOutcome:
    """The outcome of a call whose ``stage`` used the whole deadline before the query could run."""
    exc = QueryTimeout(
        f"the {stage} used the whole deadline of {total_s:g} s before the query could run; nothing more was sent"
    )
    return failure_outcome("error", exc, query=query, max_bytes=max_bytes, theta_delta=theta_delta)

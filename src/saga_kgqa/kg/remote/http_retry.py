"""The longest wait a server may impose on us with ``Retry-After``, and how waits are capped.

A ``Retry-After: 999999`` (or a 300-digit value) would otherwise pause an endpoint for
the rest of the process. Waits longer than the cap are not waited out: the call fails
with the cap in its message, and the endpoint is paused for the cap only.
"""

from __future__ import annotations

import math
import os

from saga_kgqa.errors import ConfigurationError, EndpointThrottled

#: Environment variable with the cap, in seconds.
MAX_RETRY_AFTER_ENV = "SAGA_MAX_RETRY_AFTER"
#: The cap when the environment does not set one: five minutes.
DEFAULT_MAX_RETRY_AFTER_S = 300.0


def max_retry_after_s() -> float:
    """Return the cap on ``Retry-After`` waits: ``$SAGA_MAX_RETRY_AFTER`` or :data:`DEFAULT_MAX_RETRY_AFTER_S`.

    Raises:
        ConfigurationError: The variable is not a finite, non-negative number of seconds.
    """
    raw = os.environ.get(MAX_RETRY_AFTER_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_RETRY_AFTER_S
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise ConfigurationError(f"{MAX_RETRY_AFTER_ENV} must be a number of seconds (0 or more), got {raw!r}")
    return value


def over_cap(who: str, wait: float, cap: float, *, status: int | None = None) -> EndpointThrottled:
    """The error for a server that asks for a wait longer than the cap; it names the cap.

    Args:
        who: The server, in words ("the endpoint http://…", "the Wikidata search API").
        wait: The wait the server asked for, in seconds.
        cap: The cap in force (:func:`max_retry_after_s`).
        status: The HTTP status, when known.
    """
    said = f" (HTTP {status})" if status is not None else ""
    return EndpointThrottled(
        f"endpoint busy: {who} asked us to wait {wait:.0f} s{said}, more than the cap of {cap:g} s "
        f"({MAX_RETRY_AFTER_ENV}); retry later. This is not the query's fault.",
        retry_after_s=cap,
    )

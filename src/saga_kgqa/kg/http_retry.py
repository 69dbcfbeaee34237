"""The longest wait a server may impose on us with ``Retry-After``, and how waits are capped.

A ``Retry-After: 999999`` (or a 300-digit value) would otherwise pause an endpoint for
the rest of the process. Waits longer than the cap are not waited out: the call fails
with the cap in its message, and the endpoint is paused for the cap only.
"""

from __future__ import annotations

import math
import os

from saga_kgqa.errors import ConfigurationError

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

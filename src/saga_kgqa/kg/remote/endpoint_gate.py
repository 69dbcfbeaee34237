"""Per-endpoint traffic control: a concurrency gate, throttle pauses and a circuit breaker.

One :class:`EndpointGate` exists per endpoint URL in the process, shared by every
:class:`~saga_kgqa.kg.remote.endpoint.RemoteEndpoint` for that URL, because the endpoint's
rules (WDQS: one request at a time, honour ``Retry-After``, a ban after ignoring
429s) apply to the client as a whole, not to one object.

* **Concurrency:** at most ``max_concurrency`` calls hold a slot at once.
* **Throttle pause:** a call that was told to wait owns the pause until its retry has
  been answered; no other call sends anything to the endpoint in between (faults.md
  B1). A pause left behind by a call that gave up makes later calls wait for it, or
  fail fast when it outlasts their deadline (B3).
* **Breaker:** after a connection failure, a failed liveness probe or a ban, calls fail
  at once without a request until the breaker's window has passed (B4, B9, B10).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from saga_kgqa.errors import EndpointBanned, EndpointThrottled, EndpointUnavailable
from saga_kgqa.kg.core.clock import Clock, Deadline
from saga_kgqa.redaction import redact_url

#: How long a breaker stays open after a connection or liveness failure (TogoMCP uses 60 s).
DEFAULT_BREAKER_TTL_S = 60.0


@dataclass(slots=True)
class _BreakerState:
    open_until: float = float("-inf")
    reason: str = ""
    banned: bool = False


class EndpointGate:
    """Traffic control for one endpoint URL (see the module docstring)."""

    def __init__(self, url: str, *, max_concurrency: int, clock: Clock) -> None:
        """Create the gate; use :func:`gate_for` instead to share it.

        Args:
            url: The endpoint URL (for messages).
            max_concurrency: Calls that may hold a slot at once.
            clock: The clock for pauses and breaker windows.
        """
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
        self.url = redact_url(url)  # shown in messages: credentials hidden
        self.clock = clock
        self._max = max_concurrency
        self._in_flight = 0
        self._pause_owner: object | None = None
        self._pause_until = float("-inf")
        self._breaker = _BreakerState()
        self._cond = threading.Condition()

    @property
    def max_concurrency(self) -> int:
        """Calls that may hold a slot at once."""
        return self._max

    def tighten(self, max_concurrency: int) -> None:
        """Lower the concurrency bound when a stricter profile shares this URL."""
        with self._cond:
            self._max = min(self._max, max_concurrency)

    # -- breaker -------------------------------------------------------------------

    def check_breaker(self) -> None:
        """Raise when the breaker is open, so no request is sent.

        Raises:
            EndpointBanned: The endpoint banned this client and the ban has not ended.
            EndpointUnavailable: A recent failure opened the breaker.
        """
        with self._cond:
            self._raise_if_open()

    def _raise_if_open(self) -> None:
        left = self._breaker.open_until - self.clock.monotonic()
        if left <= 0:
            return
        if self._breaker.banned:
            raise EndpointBanned(
                f"{self.url} has banned this client for another {left:.0f} s ({self._breaker.reason}); "
                "no request is sent until then. An operator must act."
            )
        raise EndpointUnavailable(
            f"{self.url} is marked unavailable for another {left:.0f} s after: {self._breaker.reason}. "
            "This is not the query's fault; do not rewrite the query."
        )

    def open_breaker(self, reason: str, *, for_s: float = DEFAULT_BREAKER_TTL_S, banned: bool = False) -> None:
        """Fail every call for ``for_s`` seconds without sending anything.

        Args:
            reason: What happened, for later messages.
            for_s: How long the breaker stays open.
            banned: The endpoint banned us (later calls raise :class:`EndpointBanned`).
        """
        with self._cond:
            now = self.clock.monotonic()
            until = now + for_s
            ban_in_force = self._breaker.banned and self._breaker.open_until > now
            if banned or (not ban_in_force and until > self._breaker.open_until):
                self._breaker = _BreakerState(open_until=until, reason=reason, banned=banned)
            self._cond.notify_all()

    def close_breaker(self) -> None:
        """Forget an open breaker (after a success)."""
        with self._cond:
            if not self._breaker.banned:
                self._breaker = _BreakerState()

    # -- slots and pauses ----------------------------------------------------------

    @contextmanager
    def slot(self, deadline: Deadline) -> Iterator[GateSlot]:
        """Hold one of the endpoint's slots for a whole call, retries included.

        Raises:
            EndpointBanned: The breaker is open because of a ban.
            EndpointUnavailable: The breaker is open.
            EndpointThrottled: No slot came free before the deadline.
        """
        holder = GateSlot(self)
        with self._cond:
            while True:
                self._raise_if_open()
                if self._in_flight < self._max:
                    break
                self._wait_or_give_up(deadline, f"no free request slot (at most {self._max} at a time)")
            self._in_flight += 1
        try:
            yield holder
        finally:
            with self._cond:
                self._in_flight -= 1
                if self._pause_owner is holder:
                    self._pause_owner = None
                self._cond.notify_all()

    def _wait_or_give_up(self, deadline: Deadline, what: str) -> None:
        left = deadline.remaining()
        if left <= 0:
            raise EndpointThrottled(
                f"endpoint busy: {what} for {self.url} within the deadline; retry later. This is not the query's fault."
            )
        self._cond.wait(timeout=left)

    def _before_send(self, holder: GateSlot, deadline: Deadline) -> None:
        with self._cond:
            while True:
                self._raise_if_open()
                if self._pause_owner is None or self._pause_owner is holder:
                    break
                self._wait_or_give_up(deadline, "another call is waiting out a throttle pause")
            wait = self._pause_until - self.clock.monotonic()
        if wait <= 0:
            return
        if wait > deadline.remaining():
            raise EndpointThrottled(
                f"endpoint busy: {self.url} asked us to wait; retry after {wait:.0f} s "
                "(more than this call's remaining time). This is not the query's fault.",
                retry_after_s=wait,
            )
        self.clock.sleep(wait)

    def leave_pause(self, seconds: float) -> None:
        """Record a pause for later calls without owning it (the caller is giving up)."""
        with self._cond:
            self._pause_until = max(self._pause_until, self.clock.monotonic() + seconds)

    def _own_pause(self, holder: GateSlot, seconds: float) -> None:
        with self._cond:
            self._pause_owner = holder
            self._pause_until = max(self._pause_until, self.clock.monotonic() + seconds)


class GateSlot:
    """A held slot: the right to send requests to the endpoint during one call."""

    def __init__(self, gate: EndpointGate) -> None:
        self._gate = gate

    def before_send(self, deadline: Deadline) -> None:
        """Wait until this call may send its next request.

        Checks the breaker, waits while another call owns a throttle pause, and waits
        out (or fails fast on) a pause left behind by an earlier call.

        Raises:
            EndpointBanned: The breaker is open because of a ban.
            EndpointUnavailable: The breaker is open.
            EndpointThrottled: The endpoint may not be asked again before the deadline.
        """
        self._gate._before_send(self, deadline)

    def pause_and_wait(self, seconds: float) -> None:
        """Pause the endpoint for everyone else, then sleep ``seconds`` on the gate's clock.

        The pause stays owned by this call until its slot is released, so its retry is
        the next request the endpoint sees from this process.
        """
        self._gate._own_pause(self, seconds)
        self._gate.clock.sleep(seconds)


_REGISTRY: dict[str, EndpointGate] = {}
_REGISTRY_LOCK = threading.Lock()


def gate_for(url: str, *, max_concurrency: int, clock: Clock) -> EndpointGate:
    """Return the process-wide gate of ``url``, creating it on first use.

    When several profiles share one URL, the strictest concurrency bound wins. The
    first caller's clock is kept: instances for one URL are expected to share a clock.
    """
    with _REGISTRY_LOCK:
        gate = _REGISTRY.get(url)
        if gate is None:
            gate = EndpointGate(url, max_concurrency=max_concurrency, clock=clock)
            _REGISTRY[url] = gate
        else:
            gate.tighten(max_concurrency)
        return gate


def forget_gate(url: str) -> None:
    """Drop the shared state of ``url`` (breaker, pauses); for operators and tests."""
    with _REGISTRY_LOCK:
        _REGISTRY.pop(url, None)

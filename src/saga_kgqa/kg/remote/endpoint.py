"""The remote backend: a SPARQL 1.1 protocol endpoint reached over HTTP with SPARQLWrapper.

:class:`RemoteEndpoint` implements :class:`~saga_kgqa.kg.core.backend.KGBackend`. One call
to :meth:`RemoteEndpoint.execute` is one question to the endpoint, answered within a
total deadline, with these rules (docs/faults.md section 8B):

* every request names us (``saga-kgqa/<version> (<contact>) SPARQLWrapper/<version>``);
* requests to one URL pass one shared gate (concurrency bound, throttle pauses,
  circuit breaker; :mod:`saga_kgqa.kg.remote.endpoint_gate`);
* a throttled request waits for ``Retry-After`` (or the profile's default) and is
  retried at most ``profile.max_throttle_retries`` times, and never when the wait
  outlasts the deadline;
* a server-side timeout is retried once, unchanged, only for an anchored query;
* a gateway fault (502/503/504) is retried once, only after an ``ASK {}`` liveness
  probe succeeded; a failed probe opens the breaker;
* syntax errors, bans and everything else are never retried.
"""

from __future__ import annotations

import hashlib
import logging
import os
import urllib.parse
from dataclasses import replace
from typing import Literal

import SPARQLWrapper

from saga_kgqa import __version__
from saga_kgqa.errors import BadResponse, ConfigurationError, EndpointRedirected, EndpointUnavailable, QueryTimeout
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.clock import SYSTEM_CLOCK, Clock, Deadline
from saga_kgqa.kg.core.profiles import EndpointProfile, protocol_params
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.kg.guard.query_shape import is_anchored
from saga_kgqa.kg.remote.endpoint_gate import DEFAULT_BREAKER_TTL_S, GateSlot, gate_for
from saga_kgqa.kg.remote.endpoint_url import split_endpoint_url
from saga_kgqa.kg.remote.http_classify import (
    Fault,
    HttpReply,
    classify,
    fault_error,
    looks_like_timeout,
    partial_result_note,
    server_row_cap,
)
from saga_kgqa.kg.remote.http_retry import max_retry_after_s, over_cap
from saga_kgqa.kg.remote.http_transport import (
    DeadlineExceeded,
    Redirected,
    RequestMethod,
    TransportFailure,
    choose_method,
    send,
)
from saga_kgqa.kg.remote.response_parse import parse_graph, parse_solutions
from saga_kgqa.redaction import redact_url

_LOG = logging.getLogger(__name__)

#: Environment variable with the operator's contact (URL or e-mail) for the User-Agent.
CONTACT_ENV = "SAGA_CONTACT"
#: Contact used when neither an explicit one nor ``$SAGA_CONTACT`` is given.
DEFAULT_CONTACT = "https://github.com/saga-kgqa/saga-kgqa"
#: The liveness probe: the cheapest query every endpoint answers.
PROBE_QUERY = "ASK {}"
#: The probe gets at most this long (TogoMCP gives its probe 5 s).
PROBE_TIMEOUT_S = 5.0
_PROBE_MAX_BYTES = 4096

Liveness = Literal["alive", "dead", "unknown"]


def build_user_agent(contact: str | None = None) -> str:
    """Return the User-Agent of every request (Wikimedia's User-Agent policy form).

    Args:
        contact: A URL or e-mail address of the operator; ``$SAGA_CONTACT`` when
            ``None``, else :data:`DEFAULT_CONTACT`. An explicit value beats the environment.

    Raises:
        ConfigurationError: The contact is empty, too long, or not printable ASCII.
    """
    chosen = contact if contact is not None else os.environ.get(CONTACT_ENV) or DEFAULT_CONTACT
    chosen = chosen.strip()
    printable = all(" " <= char <= "~" and char not in "()" for char in chosen)
    if not chosen or len(chosen) > 200 or not printable:
        raise ConfigurationError(
            f"invalid contact {chosen!r} for the User-Agent: give a URL or e-mail address "
            "(printable ASCII, no parentheses, at most 200 characters)"
        )
    return f"saga-kgqa/{__version__} ({chosen}) SPARQLWrapper/{SPARQLWrapper.__version__}"


def redirected_error(who: str, redirect: Redirected) -> EndpointRedirected:
    """The error for a redirect that was not followed; it names the target for the operator."""
    # Joined with our URL, the target may carry the operator's credentials: shown redacted.
    shown = redact_url(redirect.location)
    location = shown if len(shown) <= 500 else shown[:499] + "…"
    return EndpointRedirected(
        f"{who} redirected to {location} (HTTP {redirect.status}); redirects are never followed: "
        "configure that URL if you trust it. This is not the query's fault.",
        location=redirect.location,
    )


class RemoteEndpoint:
    """A SPARQL protocol endpoint implementing :class:`~saga_kgqa.kg.core.backend.KGBackend`."""

    def __init__(
        self,
        url: str,
        *,
        profile: EndpointProfile,
        contact: str | None = None,
        clock: Clock | None = None,
        method: RequestMethod = "auto",
        breaker_ttl_s: float = DEFAULT_BREAKER_TTL_S,
    ) -> None:
        """Describe an endpoint; nothing is sent until :meth:`execute`.

        Args:
            url: The endpoint URL (``http`` or ``https``), set by the operator, never by a model.
            profile: How to read the endpoint's signals and how hard to use it.
            contact: Operator contact for the User-Agent (see :func:`build_user_agent`).
            clock: Time source for deadlines and waits (tests pass a fake one).
            method: ``GET``, ``POST`` (form-encoded), or ``auto`` (GET unless the URL
                would exceed :data:`~saga_kgqa.kg.remote.http_transport.GET_URL_LIMIT`).
            breaker_ttl_s: How long the breaker stays open after a connection failure.

        Raises:
            ConfigurationError: The URL or contact is unusable.
        """
        try:
            parsed = urllib.parse.urlsplit(url)
            usable = parsed.scheme in ("http", "https") and bool(parsed.hostname) and parsed.port != 0
        except ValueError:  # "http://[::1" (unclosed IPv6 bracket), a port out of range
            usable = False
        if not usable:
            raise ConfigurationError(f"endpoint URL must be an http(s) URL with a host, got {redact_url(url)!r}")
        if method not in ("GET", "POST", "auto"):
            raise ConfigurationError(f"request method must be GET, POST or auto, got {method!r}")
        split_endpoint_url(url)  # refuses a query string that sets the query itself
        self._url = url
        # What messages, logs and ids show: credentials in the URL (userinfo, ?apikey=) hidden.
        self._shown = redact_url(url)
        self._profile = profile
        self._clock = clock or SYSTEM_CLOCK
        self._method: RequestMethod = method
        self._breaker_ttl_s = breaker_ttl_s
        self._agent = build_user_agent(contact)
        self._gate = gate_for(url, max_concurrency=profile.max_concurrency, clock=self._clock)
        self._closed = False

    @property
    def endpoint_id(self) -> str:
        """Identify the endpoint by its URL, and the graphs it is scoped to when configured."""
        graphs = [*self._profile.default_graphs, *(f"named:{g}" for g in self._profile.named_graphs)]
        return f"remote:{self._shown}" + (f"#graphs={','.join(graphs)}" if graphs else "")

    @property
    def profile(self) -> EndpointProfile:
        """The endpoint profile in force."""
        return self._profile

    @property
    def url(self) -> str:
        """The endpoint URL."""
        return self._url

    @property
    def user_agent(self) -> str:
        """The User-Agent sent with every request."""
        return self._agent

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        """Send a checked query and return its typed result.

        Args:
            query: The query; its text is sent unchanged.
            limits: Deadline (total, waits and retries included), row cap and byte cap.

        Returns:
            The result; ``truncated`` when a cap cut it, ``complete=False`` when the
            endpoint flagged it as partial.

        Raises:
            QuerySyntaxError: The endpoint says the query is malformed.
            QueryTimeout: The endpoint or our deadline timed the query out.
            EndpointThrottled: The endpoint asks us to wait longer than we may.
            EndpointBanned: The endpoint banned this client.
            EndpointUnavailable: The endpoint cannot be reached or is failing.
            BadResponse: The answer is not a valid result (never taken for an empty one).
            ConfigurationError: The endpoint object was closed.
        """
        if self._closed:
            raise ConfigurationError(f"the endpoint {self._shown} was closed")
        limits = limits or ExecutionLimits()
        started = self._clock.monotonic()
        deadline = Deadline(self._clock, limits.deadline_s)
        with self._gate.slot(deadline) as slot:
            result = self._answer(query, limits, deadline, slot)
        result.elapsed_s = self._clock.monotonic() - started
        return result

    def close(self) -> None:
        """Refuse further calls; no connection outlives a request, so nothing else is held."""
        self._closed = True

    def _answer(self, query: CheckedQuery, limits: ExecutionLimits, deadline: Deadline, slot: GateSlot) -> QueryResult:
        method = choose_method(self._url, query.text, self._method)
        throttle_waits = 0
        timeout_retried = gateway_retried = False
        while True:
            slot.before_send(deadline)
            reply = self._send(query, method, deadline, limits.max_bytes)
            fault = classify(reply, self._profile, wall_now=self._clock.time())
            if fault is None:
                result = self._parse(reply, query, limits)
                self._gate.close_breaker()
                return result
            if fault.kind == "throttled":
                wait = fault.retry_after_s if fault.retry_after_s is not None else self._profile.default_retry_after_s
                cap = max_retry_after_s()
                if wait > cap:
                    # Pause the endpoint for the cap only: one reply must not block it for the process.
                    self._gate.leave_pause(cap)
                    raise over_cap(f"the endpoint {self._shown}", wait, cap, status=reply.status)
                if throttle_waits >= self._profile.max_throttle_retries or wait > deadline.remaining():
                    self._gate.leave_pause(wait)
                    raise fault_error(replace(fault, retry_after_s=wait), endpoint=self._shown)
                throttle_waits += 1
                slot.pause_and_wait(wait)
                continue
            if self._may_retry_timeout(fault, query, already=timeout_retried):
                timeout_retried = True
                continue
            if fault.kind == "gateway" and not gateway_retried and self._gateway_probe(fault, deadline):
                gateway_retried = True
                continue
            if fault.kind == "banned":
                ban_s = fault.ban_s if fault.ban_s is not None else self._breaker_ttl_s
                self._gate.open_breaker(f"banned: {fault.server_text[:200]}", for_s=ban_s, banned=True)
            raise fault_error(fault, endpoint=self._shown)

    def _may_retry_timeout(self, fault: Fault, query: CheckedQuery, *, already: bool) -> bool:
        """A server timeout is retried once, unchanged, and only for an anchored query (TogoMCP rule)."""
        if fault.kind != "server_timeout" or not fault.retry_if_anchored or already:
            return False
        return is_anchored(query.text, self._profile.prefixes)

    def _gateway_probe(self, fault: Fault, deadline: Deadline) -> bool:
        """After a gateway fault: probe; open the breaker when the endpoint is dead."""
        liveness = self.probe(deadline)
        if liveness == "dead":
            self._gate.open_breaker(f"{fault.message}, and the liveness probe failed", for_s=self._breaker_ttl_s)
        return liveness == "alive"

    def probe(self, deadline: Deadline | None = None) -> Liveness:
        """Ask the endpoint ``ASK {}`` on a separate short request.

        Args:
            deadline: The caller's deadline; the probe takes at most
                :data:`PROBE_TIMEOUT_S` of what is left of it.

        Returns:
            ``alive`` on a 2xx answer, ``dead`` on no answer or an error status,
            ``unknown`` when no time is left to ask.
        """
        budget = PROBE_TIMEOUT_S if deadline is None else min(PROBE_TIMEOUT_S, deadline.remaining())
        if budget <= 0:
            return "unknown"
        try:
            reply = send(
                self._url,
                PROBE_QUERY,
                "ASK",
                agent=self._agent,
                method="GET",
                deadline=Deadline(self._clock, budget),
                max_bytes=_PROBE_MAX_BYTES,
            )
        except (DeadlineExceeded, TransportFailure, Redirected):
            return "dead"
        return "alive" if 200 <= reply.status < 300 else "dead"

    def _send(
        self, query: CheckedQuery, method: Literal["GET", "POST"], deadline: Deadline, max_bytes: int
    ) -> HttpReply:
        digest = hashlib.sha256(query.text.encode("utf-8")).hexdigest()[:12]
        sent_at = self._clock.monotonic()
        try:
            reply = send(
                self._url,
                query.text,
                query.form,
                agent=self._agent,
                method=method,
                deadline=deadline,
                max_bytes=max_bytes,
                params=protocol_params(self._profile, remaining_s=deadline.remaining()),
            )
        except DeadlineExceeded:
            _LOG.info("query %s to %s: our deadline of %.1f s passed", digest, self._shown, deadline.total_s)
            raise QueryTimeout(
                f"no complete answer from {self._shown} within the deadline of {deadline.total_s:g} s. "
                "The query may be too heavy: narrow it (anchor it on a known entity, add a LIMIT, "
                "drop OPTIONALs or ORDER BY)."
            ) from None
        except Redirected as redirect:
            _LOG.info("query %s to %s: redirected to %s", digest, self._shown, redirect.location)
            raise redirected_error(f"the endpoint {self._shown}", redirect) from None
        except TransportFailure as failure:
            _LOG.info("query %s to %s: %s", digest, self._shown, failure.reason)
            if not failure.connected:
                self._gate.open_breaker(failure.reason, for_s=self._breaker_ttl_s)
            raise EndpointUnavailable(
                f"{self._shown} is unavailable: {failure.reason}. This is not the query's fault; "
                "do not rewrite the query."
            ) from None
        _LOG.debug(
            "query %s to %s: HTTP %d, %d bytes (%s) in %.3f s",
            digest,
            self._shown,
            reply.status,
            len(reply.body),
            reply.ending,
            self._clock.monotonic() - sent_at,
        )
        return reply

    def _parse(self, reply: HttpReply, query: CheckedQuery, limits: ExecutionLimits) -> QueryResult:
        complete = reply.ending == "eof"
        try:
            if query.form in ("SELECT", "ASK"):
                result = parse_solutions(reply.body, query.form, max_rows=limits.max_rows, complete=complete)
            else:
                result = parse_graph(
                    reply.body, reply.content_type, query.form, max_rows=limits.max_rows, complete=complete
                )
        except RecursionError:
            # json.loads recurses per nesting level: 200,000 "[" in a 200 answer.
            raise BadResponse(
                f"the answer of {self._shown} is nested too deeply to be a {query.form} result; "
                "this is not an empty result."
            ) from None
        except ValueError as error:
            # Oxigraph and QLever append their timeout message after the partial output.
            tail = reply.body[-2048:].decode("utf-8", errors="replace")
            if looks_like_timeout(tail):
                raise QueryTimeout(
                    f"the endpoint stopped mid-answer with a timeout ({error}); narrow the query."
                ) from None
            raise BadResponse(
                f"the answer of {self._shown} is not a valid {query.form} result ({error}); "
                "this is not an empty result."
            ) from None
        note = partial_result_note(reply, self._profile)
        if note is not None:
            result.complete = False
            result.notes.append(note)
        row_cap = server_row_cap(reply, self._profile)
        if row_cap is not None and not result.truncated:
            result.truncated = True
            result.notes.append(
                f"the endpoint cut the answer at its own limit of {row_cap} rows; more rows may exist "
                "(narrow the query, or page it with ORDER BY and OFFSET)"
            )
        return result

"""Entity search through MediaWiki's ``wbsearchentities`` API, with the SPARQL client's etiquette.

SPINACH's ``search_wikidata`` (docs/reference-systems.md section 1.2) calls this API for
items and properties. Wikimedia's rules are the same as for WDQS: a User-Agent naming the
operator (:func:`~saga_kgqa.kg.remote.endpoint.build_user_agent`), one request at a time per
host (the process-wide :func:`~saga_kgqa.kg.remote.endpoint_gate.gate_for` gate), and waiting
out ``Retry-After`` on HTTP 429 or 503 before asking again (up to the cap of
:mod:`saga_kgqa.kg.remote.http_retry`). Requests go through the SPARQL client's transport
(:func:`saga_kgqa.kg.remote.http_transport.get`): one total deadline, a byte cap, no redirects.
"""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import dataclass
from typing import Literal

from saga_kgqa.errors import BadResponse, ConfigurationError, EndpointThrottled, EndpointUnavailable, QueryTimeout
from saga_kgqa.kg.core.clock import SYSTEM_CLOCK, Clock, Deadline
from saga_kgqa.kg.remote import http_transport
from saga_kgqa.kg.remote.endpoint import build_user_agent, redirected_error
from saga_kgqa.kg.remote.endpoint_gate import gate_for
from saga_kgqa.kg.remote.http_classify import parse_retry_after
from saga_kgqa.kg.remote.http_retry import max_retry_after_s, over_cap
from saga_kgqa.redaction import redact_url

WIKIDATA_API = "https://www.wikidata.org/w/api.php"
EntityKind = Literal["item", "property"]
#: Wait after a 429 that names no ``Retry-After`` (Wikimedia asks clients to back off).
DEFAULT_RETRY_AFTER_S = 5.0
#: Bytes read from one answer; a search answer is a few kilobytes.
MAX_RESPONSE_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class EntitySearchHit:
    """One hit: id (``Q42``, ``P57``), label, description and the text that matched (label or alias)."""

    id: str
    label: str | None
    description: str | None
    matched: str | None


class WikidataEntitySearch:
    """A small ``wbsearchentities`` client: one request at a time, Retry-After honoured."""

    def __init__(
        self,
        url: str = WIKIDATA_API,
        *,
        contact: str | None = None,
        clock: Clock = SYSTEM_CLOCK,
        max_throttle_retries: int = 2,
    ) -> None:
        """Configure the client.

        Args:
            url: The MediaWiki API endpoint (``https://www.wikidata.org/w/api.php``).
            contact: Operator contact for the User-Agent.
            clock: Clock for deadlines and waits.
            max_throttle_retries: Retries after a 429/503 within one call.

        Raises:
            ConfigurationError: The URL is not http(s) or the contact is unusable.
        """
        try:
            parsed = urllib.parse.urlsplit(url)
            usable = parsed.scheme in ("http", "https") and bool(parsed.hostname)
        except ValueError:  # "http://[::1": an unclosed IPv6 bracket
            usable = False
        if not usable:
            raise ConfigurationError(f"not an http(s) API URL with a host: {redact_url(url)!r}")
        self.url = url
        self.user_agent = build_user_agent(contact)
        self._clock = clock
        self._retries = max_throttle_retries
        self._gate = gate_for(url, max_concurrency=1, clock=clock)

    def search(
        self, text: str, *, kind: EntityKind = "item", limit: int = 8, language: str = "en", deadline_s: float = 10.0
    ) -> list[EntitySearchHit]:
        """Search items or properties by label and alias, best first.

        Raises:
            EndpointThrottled: The API asked us to wait longer than the deadline allows.
            QueryTimeout: No answer within ``deadline_s``.
            EndpointUnavailable: The API could not be reached or failed (HTTP 5xx).
            BadResponse: The answer is not the API's JSON.
        """
        params = {
            "action": "wbsearchentities",
            "format": "json",
            "search": text,
            "language": language,
            "uselang": language,
            "type": kind,
            "limit": str(max(1, min(limit, 50))),
        }
        request_url = f"{self.url}?{urllib.parse.urlencode(params)}"
        deadline = Deadline(self._clock, deadline_s)
        with self._gate.slot(deadline) as slot:
            for attempt in range(self._retries + 1):
                slot.before_send(deadline)
                status, headers, body = self._get(request_url, deadline)
                if status in (429, 503):
                    wait = parse_retry_after(headers.get("retry-after"), wall_now=self._clock.time())
                    wait = DEFAULT_RETRY_AFTER_S if wait is None else wait
                    cap = max_retry_after_s()
                    if wait > cap:
                        self._gate.leave_pause(cap)
                        raise over_cap("the Wikidata search API", wait, cap, status=status)
                    if attempt == self._retries or wait > deadline.remaining():
                        self._gate.leave_pause(wait)
                        raise EndpointThrottled(
                            f"the Wikidata search API asked us to wait {wait:.0f} s (HTTP {status}); retry later",
                            retry_after_s=wait,
                        )
                    slot.pause_and_wait(wait)
                    continue
                if status >= 400:
                    raise EndpointUnavailable(f"the Wikidata search API answered HTTP {status}")
                return _hits(body)
        raise EndpointThrottled("the Wikidata search API kept throttling this client")

    def _get(self, url: str, deadline: Deadline) -> tuple[int, dict[str, str], bytes]:
        # The SPARQL client's transport: one total deadline (a watchdog, re-armed reads),
        # a byte cap, and no redirect followed.
        try:
            reply = http_transport.get(
                url, agent=self.user_agent, accept="application/json", deadline=deadline, max_bytes=MAX_RESPONSE_BYTES
            )
        except http_transport.DeadlineExceeded:
            raise QueryTimeout(
                f"the Wikidata search API did not answer within the deadline of {deadline.total_s:g} s"
            ) from None
        except http_transport.Redirected as redirect:
            raise redirected_error("the Wikidata search API", redirect) from None
        except http_transport.TransportFailure as failure:
            raise EndpointUnavailable(f"cannot reach the Wikidata search API: {failure.reason}") from None
        if reply.ending != "eof" and 200 <= reply.status < 300:
            raise BadResponse(f"the Wikidata search API's answer was cut off ({reply.ending})")
        return reply.status, _lower(list(reply.headers)), reply.body


def _lower(items: list[tuple[str, str]]) -> dict[str, str]:
    return {name.lower(): value for name, value in items}


def _hits(body: bytes) -> list[EntitySearchHit]:
    try:
        data = json.loads(body)
        found = data["search"]
        return [
            EntitySearchHit(
                id=str(hit["id"]),
                label=hit.get("label"),
                description=hit.get("description"),
                matched=(hit.get("match") or {}).get("text"),
            )
            for hit in found
        ]
    except RecursionError:
        raise BadResponse("the Wikidata search API sent JSON nested too deeply to read") from None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BadResponse(f"the Wikidata search API sent something that is not its JSON: {exc}") from exc

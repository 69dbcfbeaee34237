"""One perimeter for every HTTP face (``saga mcp --http``, ``saga serve text2sparql``, ``saga serve web``).

A plain ASGI middleware in front of each face's app:

* **Host** must name an allowed host, parsed strictly (``name`` or ``[v6]``, then an optional
  numeric port): a DNS-rebinding page's ``Host: evil.example`` and the prefix trick
  ``Host: 127.0.0.1:1@evil.example`` (which the MCP SDK's ``127.0.0.1:*`` pattern lets through) both fail.
* **Origin**, when a browser sends one, must be the request's own origin, compared as scheme, host and
  port (or one of ``$SAGA_ALLOWED_ORIGINS``): another site, or a page on another local port, cannot call
  the face. Two ``Host`` or two ``Origin`` headers are refused (400), never read as the last one.
* **Token**: binding beyond loopback needs an operator token (``$SAGA_SERVE_TOKEN``); every request then
  carries ``Authorization: Bearer TOKEN`` (a page face may instead be opened once at ``/?token=TOKEN``,
  which sets a ``SameSite=Strict`` HttpOnly cookie bound to that origin, because a browser's event stream
  cannot send headers; the cookie counts only on same-origin requests).
* **Runs a page cannot forge** (a face with ``client_runs``, TEXT2SPARQL): a run starts only on a JSON
  ``POST``, a request with a custom header (``X-Saga-Client``), the operator's bearer token, or a request
  no browser sent (no fetch metadata and no browser ``User-Agent``, which a page cannot set without a
  CORS preflight this server never grants): an ``<img>``, link or form cannot start one.
* **Busy**: bounded concurrent runs per face and per client (:class:`RunSlots`); a request beyond
  either cap gets HTTP 429 with ``Retry-After`` instead of a queue without bound.
* **Headers**: CSP, ``X-Frame-Options: DENY``, ``X-Content-Type-Options: nosniff`` and
  ``Referrer-Policy: no-referrer`` on every response.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
import re
import threading
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from saga_kgqa.errors import ConfigurationError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Names a loopback bind answers to.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
TOKEN_ENV = "SAGA_SERVE_TOKEN"  # noqa: S105 (the name of the variable, not a token)
HOSTS_ENV = "SAGA_ALLOWED_HOSTS"
ORIGINS_ENV = "SAGA_ALLOWED_ORIGINS"
#: A header a page cannot add to a cross-site request without a CORS preflight (never granted here).
CLIENT_HEADER = "x-saga-client"
#: How every current browser's User-Agent begins; a page cannot change it on a request without a preflight.
_BROWSER_AGENTS = ("Mozilla/", "Opera/")
MAX_RUNS_ENV = "SAGA_MAX_RUNS"
MAX_CLIENT_RUNS_ENV = "SAGA_MAX_RUNS_PER_CLIENT"
#: Concurrent runs per face, and per client address, unless the operator says otherwise.
DEFAULT_MAX_RUNS = 16
DEFAULT_MAX_CLIENT_RUNS = 8
#: Seconds a busy answer tells the client to wait.
RETRY_AFTER_S = 2
TOKEN_COOKIE = "saga_token"  # noqa: S105 (a cookie name)
MIN_TOKEN_CHARS = 16

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)

_HOST = re.compile(
    r"^(?P<name>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(?::(?P<port>\d{1,5}))?$"
)
_ORIGIN = re.compile(r"^(?P<scheme>[Hh][Tt][Tt][Pp][Ss]?)://(?P<host>[^/?#\s]+)$")


class Busy(Exception):
    """Every run slot of the face (or of this client) is taken."""

    def __init__(self, message: str, retry_after_s: int = RETRY_AFTER_S) -> None:
        """Say why, and how long to wait."""
        super().__init__(message)
        self.message = message
        self.retry_after_s = retry_after_s


def is_loopback(bind: str) -> bool:
    """True for a bind address only this machine can reach."""
    if bind == "localhost":
        return True
    try:
        return ipaddress.ip_address(bind.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str | None:
    """The host name of a ``Host`` header (lower case, ``[v6]`` unbracketed), or None when malformed."""
    found = _HOST.match(header.strip())
    if found is None or (found["port"] is not None and int(found["port"]) > 65535):
        return None
    return found["name"].strip("[]").lower()


def origin_host(origin: str) -> str | None:
    """The host name of an ``Origin`` header, or None when it is not a plain ``http(s)://host[:port]``."""
    found = _ORIGIN.match(origin.strip())
    return host_name(found["host"]) if found else None


@dataclass
class RunSlots:
    """Bounded concurrent runs: at most ``total`` at once, at most ``per_client`` for one client address.

    Thread-safe: taken and given back from worker threads and the event loop alike.
    """

    total: int = DEFAULT_MAX_RUNS
    per_client: int = DEFAULT_MAX_CLIENT_RUNS
    retry_after_s: int = RETRY_AFTER_S
    _held: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def running(self) -> int:
        """Runs holding a slot now."""
        with self._lock:
            return sum(self._held.values())

    def take(self, client: str) -> None:
        """Take a slot for ``client``.

        Raises:
            Busy: The face or this client is at its cap.
        """
        with self._lock:
            if sum(self._held.values()) >= self.total:
                raise Busy(f"busy: {self.total} runs are in progress; retry after {self.retry_after_s} s")
            if self._held.get(client, 0) >= self.per_client:
                raise Busy(
                    f"busy: this client already has {self.per_client} runs in progress; "
                    f"retry after {self.retry_after_s} s"
                )
            self._held[client] = self._held.get(client, 0) + 1

    def give_back(self, client: str) -> None:
        """Give back a slot taken for ``client``."""
        with self._lock:
            left = self._held.get(client, 0) - 1
            if left > 0:
                self._held[client] = left
            else:
                self._held.pop(client, None)

    @classmethod
    def from_env(cls, total: int = DEFAULT_MAX_RUNS, per_client: int = DEFAULT_MAX_CLIENT_RUNS) -> RunSlots:
        """The caps from ``$SAGA_MAX_RUNS`` and ``$SAGA_MAX_RUNS_PER_CLIENT``, else the face's defaults.

        Raises:
            ConfigurationError: A cap that is not a positive whole number.
        """
        return cls(
            total=positive_setting(MAX_RUNS_ENV, total), per_client=positive_setting(MAX_CLIENT_RUNS_ENV, per_client)
        )


def positive_setting(name: str, default: int) -> int:
    """The operator's ``$name`` as a positive whole number, else ``default``.

    Raises:
        ConfigurationError: The variable is set to anything but a positive whole number.
    """
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ConfigurationError(f"${name} must be a positive whole number, got {raw!r}")
    return int(raw)


def client_of(scope: Scope) -> str:
    """The client address of a request (the per-client cap's key)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


@dataclass(frozen=True)
class Perimeter:
    """What one HTTP face accepts.

    Attributes:
        hosts: Host names accepted in ``Host`` and ``Origin`` (lower case).
        token: The operator's bearer token (None: no token asked, loopback only).
        slots: Run slots of the face; :meth:`wrap` caps the requests ``is_run`` selects with them.
        is_run: Which requests are runs (method, path) for the cap; none by default.
        origins: Origins accepted beside the request's own (``scheme://host[:port]``, lower case), e.g. a
            TLS proxy's.
        page: The face serves a browser page: ``/?token=`` sets the token cookie, and the cookie is taken.
        client_runs: Runs start only on requests a page cannot forge (see the module's docstring).
    """

    hosts: frozenset[str]
    token: str | None = None
    slots: RunSlots = field(default_factory=RunSlots)
    is_run: Callable[[str, str], bool] = field(default=lambda _method, _path: False)
    origins: frozenset[str] = frozenset()
    page: bool = True
    client_runs: bool = False

    @classmethod
    def for_bind(
        cls,
        bind: str,
        *,
        is_run: Callable[[str, str], bool] | None = None,
        extra_hosts: Iterable[str] = (),
        slots: RunSlots | None = None,
        page: bool = True,
        client_runs: bool = False,
    ) -> Perimeter:
        """The perimeter of a face bound to ``bind``, from the environment.

        Loopback names are always accepted; a specific non-loopback bind address too; more names
        come from ``$SAGA_ALLOWED_HOSTS`` (comma-separated). Beyond loopback a token is required.
        ``slots`` (default: :meth:`RunSlots.from_env`) caps the runs ``is_run`` selects.

        Raises:
            ConfigurationError: A non-loopback bind without ``$SAGA_SERVE_TOKEN`` (or a short one), or bad caps.
        """
        hosts = {*LOOPBACK_HOSTS, *(h.strip().lower() for h in extra_hosts)}
        hosts |= {h.strip().strip("[]").lower() for h in os.environ.get(HOSTS_ENV, "").split(",") if h.strip()}
        token = os.environ.get(TOKEN_ENV, "").strip() or None
        if not is_loopback(bind):
            if bind not in ("0.0.0.0", "::"):  # noqa: S104 (a wildcard bind names no host)
                hosts.add(bind.strip("[]").lower())
            if token is None:
                raise ConfigurationError(
                    f"--bind {bind} reaches beyond this machine: set ${TOKEN_ENV} to an operator token "
                    f"(at least {MIN_TOKEN_CHARS} characters) that every client sends as 'Authorization: Bearer …', "
                    f"and ${HOSTS_ENV} to the host names clients use"
                )
        if token is not None and len(token) < MIN_TOKEN_CHARS:
            raise ConfigurationError(f"${TOKEN_ENV} is shorter than {MIN_TOKEN_CHARS} characters")
        slots = slots or RunSlots.from_env()
        origins = set()
        for raw in filter(None, (o.strip().rstrip("/") for o in os.environ.get(ORIGINS_ENV, "").split(","))):
            normal = normal_origin(raw)
            if normal is None:
                raise ConfigurationError(f"${ORIGINS_ENV}: {raw[:100]!r} is not an origin (scheme://host[:port])")
            origins.add(normal)
        return cls(
            hosts=frozenset(hosts),
            token=token,
            slots=slots,
            is_run=is_run or (lambda _m, _p: False),
            origins=frozenset(origins),
            page=page,
            client_runs=client_runs,
        )

    def notice(self) -> str:
        """The line said at start: who may connect."""
        names = ", ".join(sorted(self.hosts))
        if self.token:
            return f"perimeter: token required (Authorization: Bearer ${TOKEN_ENV}); hosts {names}"
        return f"perimeter: loopback only, no token; hosts {names}"

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """Why a request is refused (status, message), or None when it may pass."""
        pairs = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in scope.get("headers", [])]
        for once in ("host", "origin"):
            if sum(key == once for key, _ in pairs) > 1:
                return 400, f"duplicate {once.title()} header: send one"
        headers = dict(pairs)
        name = host_name(headers.get("host", ""))
        if name is None or name not in self.hosts:
            return 421, "this server does not answer to that Host (DNS rebinding is refused)"
        origin = headers.get("origin")
        if origin is not None and not self._own_origin(origin, scope, headers):
            return 403, "cross-site requests are refused (Origin not this server's scheme, host and port)"
        if self.token is not None and not self._authorised(scope, headers):
            return 401, "send the operator's token: 'Authorization: Bearer TOKEN'"
        return None

    def run_refusal(self, scope: Scope) -> tuple[int, str] | None:
        """Why a run request of a ``client_runs`` face is refused (a page could have sent it), or None."""
        if not self.client_runs:
            return None
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if self.token is not None and _bearer(headers, self.token):
            return None
        if scope.get("method") == "POST":
            media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
            return None if media == "application/json" else (415, "send the question as JSON (application/json)")
        if CLIENT_HEADER in headers:
            return None
        site = headers.get("sec-fetch-site")
        if site in ("same-origin", "none"):
            return None  # this server's own page, or the user's own address bar
        if site is None and not headers.get("user-agent", "").startswith(_BROWSER_AGENTS):
            return None  # no browser sent it (the official TEXT2SPARQL client, curl, scripts)
        return 403, (
            "a run starts only on a request a web page cannot forge: POST the question as JSON, add the header "
            "'X-Saga-Client: 1', or send the operator's token"
        )

    def _own_origin(self, origin: str, scope: Scope, headers: dict[str, str]) -> bool:
        """Whether ``origin`` is the request's own (scheme, host and port) or one the operator allowed."""
        own = request_origin(scope, headers)
        given = normal_origin(origin)
        return given is not None and (given == own or given in self.origins)

    def _authorised(self, scope: Scope, headers: dict[str, str]) -> bool:
        assert self.token is not None
        if _bearer(headers, self.token):
            return True
        if not self.page:
            return False  # a face without a page takes no cookie and sets none
        cookie = _cookie(headers.get("cookie", ""), TOKEN_COOKIE)
        site = headers.get("sec-fetch-site")
        if cookie and site in (None, "same-origin", "none"):
            # Bound to the origin that set it: a saga face on another port of this host never shares it.
            expected = _cookie_value(self.token, request_origin(scope, headers) or "")
            if hmac.compare_digest(cookie.encode(), expected.encode()):
                return True
        # The page opened once at /?token=…: the handler below turns it into a cookie.
        query = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
        return scope.get("path") == "/" and bool(query) and hmac.compare_digest(query.encode(), self.token.encode())

    def wrap(self, app: ASGIApp) -> ASGIApp:
        """``app`` behind this perimeter (lifespan and other non-HTTP scopes pass through)."""
        perimeter = self

        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "websocket":  # no face speaks websockets: refuse before the app sees one
                await send({"type": "websocket.close", "code": 1008})
                return
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            refused = perimeter.refusal(scope)
            if refused is not None:
                extra = [(b"www-authenticate", b'Bearer realm="saga-kgqa"')] if refused[0] == 401 else []
                await _json(send, refused[0], {"error": refused[1]}, extra)
                return
            client = client_of(scope)
            capped = perimeter.is_run(scope.get("method", "GET"), scope.get("path", ""))
            forged = perimeter.run_refusal(scope) if capped else None
            if forged is not None:
                await _json(send, forged[0], {"error": forged[1]}, [])
                return
            if capped:
                try:
                    perimeter.slots.take(client)
                except Busy as busy:
                    await _json(
                        send, 429, {"error": busy.message}, [(b"retry-after", str(busy.retry_after_s).encode())]
                    )
                    return
            try:
                await app(scope, receive, _with_headers(send, perimeter._cookie_for(scope)))
            finally:
                if capped:
                    perimeter.slots.give_back(client)

        return guarded

    def _cookie_for(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        if (
            self.token is None
            or not self.page
            or scope.get("path") != "/"
            or b"token=" not in scope.get("query_string", b"")
        ):
            return []
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        bound = _cookie_value(self.token, request_origin(scope, headers) or "")
        value = f"{TOKEN_COOKIE}={bound}; HttpOnly; SameSite=Strict; Path=/"
        return [(b"set-cookie", value.encode("latin-1"))]


def request_origin(scope: Scope, headers: dict[str, str]) -> str | None:
    """The origin a request was sent to: its scheme and its ``Host`` (default port added), lower case."""
    return normal_origin(f"{scope.get('scheme', 'http')}://{headers.get('host', '')}")


def normal_origin(origin: str) -> str | None:
    """``scheme://host:port`` with the scheme's default port made explicit, or None when not a plain origin."""
    found = _ORIGIN.match(origin.strip())
    if found is None:
        return None
    scheme = found["scheme"].lower()
    parts = _HOST.match(found["host"])
    if parts is None or host_name(found["host"]) is None:
        return None
    port = int(parts["port"]) if parts["port"] is not None else (443 if scheme == "https" else 80)
    return f"{scheme}://{parts['name'].lower()}:{port}"


def _bearer(headers: dict[str, str], token: str) -> bool:
    given = headers.get("authorization", "")
    return given[:7].lower() == "bearer " and hmac.compare_digest(given[7:].strip().encode(), token.encode())


def _cookie_value(token: str, origin: str) -> str:
    """The token cookie's value for ``origin``: a keyed digest, so it names neither the token nor another origin."""
    return hmac.new(token.encode(), f"saga-page-cookie {origin}".encode(), "sha256").hexdigest()


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, sep, value = part.strip().partition("=")
        if sep and key == name:
            return value
    return None


def _with_headers(send: Send, extra: list[tuple[bytes, bytes]]) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            present = {k.lower() for k, _ in message.get("headers", [])}
            added = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
            message["headers"] = [*message.get("headers", []), *added, *extra]
        await send(message)

    return sending


async def _json(send: Send, status: int, body: dict[str, str], extra: list[tuple[bytes, bytes]]) -> None:
    payload = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": [*headers, *SECURITY_HEADERS, *extra]})
    await send({"type": "http.response.body", "body": payload})

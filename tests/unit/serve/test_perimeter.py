"""The HTTP perimeter every face shares: strict Host and Origin, the operator token, busy answers, page headers."""

from __future__ import annotations

import threading

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.serve.perimeter import Busy, Perimeter, RunSlots, host_name, is_loopback, origin_host

TOKEN = "a-long-operator-token-0123456789"


def app(release: threading.Event | None = None) -> Starlette:
    async def hello(_request: Request) -> PlainTextResponse:
        return PlainTextResponse("hello")

    async def run(_request: Request) -> PlainTextResponse:
        import anyio.to_thread

        if release is not None:
            await anyio.to_thread.run_sync(release.wait, 10)
        return PlainTextResponse("ran")

    return Starlette(routes=[Route("/", hello), Route("/run", run, methods=["POST"])])


def client(perimeter: Perimeter, host: str = "127.0.0.1:8000") -> TestClient:
    return TestClient(perimeter.wrap(app()), base_url=f"http://{host}")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "header",
    [
        "127.0.0.1:1@evil.example",  # passes the MCP SDK's "127.0.0.1:*" prefix match
        "evil.example",
        "127.0.0.1.evil.example",
        "localhost:80:81",
        "127.0.0.1:99999",
        "",
        "[::1]x",
    ],
)
def test_foreign_or_malformed_hosts_are_refused(header: str) -> None:
    reply = client(Perimeter.for_bind("127.0.0.1")).get("/", headers={"host": header})
    assert reply.status_code == 421 and "Host" in reply.json()["error"]


@pytest.mark.parametrize("header", ["127.0.0.1", "127.0.0.1:8765", "localhost:1", "[::1]:8080", "LOCALHOST"])
def test_loopback_hosts_pass(header: str) -> None:
    reply = client(Perimeter.for_bind("127.0.0.1")).get("/", headers={"host": header})
    assert reply.status_code == 200 and reply.text == "hello"


def test_host_and_origin_parsing() -> None:
    assert host_name("127.0.0.1:1@evil.example") is None
    assert host_name("[::1]:80") == "::1"
    assert origin_host("http://127.0.0.1:8080") == "127.0.0.1"
    assert origin_host("http://127.0.0.1:8080/path") is None
    assert origin_host("http://user@127.0.0.1") is None
    assert origin_host("null") is None
    assert is_loopback("::1") and is_loopback("127.0.0.2") and not is_loopback("0.0.0.0")


@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://127.0.0.1.evil.example", "file://"])
def test_cross_site_origins_are_refused(origin: str) -> None:
    reply = client(Perimeter.for_bind("127.0.0.1")).get("/", headers={"origin": origin})
    assert reply.status_code == 403 and "Origin" in reply.json()["error"]


def test_only_the_requests_own_origin_passes() -> None:
    # Compared as scheme, host and port (issue 38): a page on another local port is another origin.
    own = client(Perimeter.for_bind("127.0.0.1"))
    assert own.get("/", headers={"origin": "http://127.0.0.1:8000"}).text == "hello"
    assert own.get("/", headers={"origin": "HTTP://127.0.0.1:8000"}).text == "hello"
    for other in ("http://localhost:8000", "http://127.0.0.1:8080", "https://127.0.0.1:8000", "http://127.0.0.1"):
        assert own.get("/", headers={"origin": other}).status_code == 403, other
    assert (
        client(Perimeter.for_bind("127.0.0.1"), "127.0.0.1").get("/", headers={"origin": "http://127.0.0.1:80"}).text
        == "hello"
    )


def test_an_origin_the_operator_allows_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAGA_ALLOWED_ORIGINS", "https://kg-box.lan")
    allowed = client(Perimeter.for_bind("127.0.0.1"))
    assert allowed.get("/", headers={"origin": "https://kg-box.lan:443"}).text == "hello"
    assert allowed.get("/", headers={"origin": "https://kg-box.lan:8443"}).status_code == 403


def test_the_token_cookie_is_bound_to_its_origin_and_taken_same_origin_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAGA_SERVE_TOKEN", TOKEN)
    perimeter = Perimeter.for_bind("192.0.2.7")
    opened = client(perimeter, "192.0.2.7:8080").get("/", params={"token": TOKEN})
    set_cookie = opened.headers["set-cookie"]
    assert "SameSite=Strict" in set_cookie and "HttpOnly" in set_cookie and TOKEN not in set_cookie
    cookie = set_cookie.split(";", 1)[0]
    page = client(perimeter, "192.0.2.7:8080")
    assert page.get("/", headers={"cookie": cookie}).status_code == 200
    assert page.get("/", headers={"cookie": cookie, "sec-fetch-site": "same-origin"}).status_code == 200
    # A page on another port of the same host (same-site: the browser sends the cookie) is refused.
    assert page.get("/", headers={"cookie": cookie, "sec-fetch-site": "same-site"}).status_code == 401
    # Another saga face on another port never shares the cookie, nor does the raw token work as one.
    assert client(perimeter, "192.0.2.7:8081").get("/", headers={"cookie": cookie}).status_code == 401
    assert page.get("/", headers={"cookie": f"saga_token={TOKEN}"}).status_code == 401


def test_binding_beyond_loopback_needs_a_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SAGA_SERVE_TOKEN", raising=False)
    with pytest.raises(ConfigurationError, match="SAGA_SERVE_TOKEN"):
        Perimeter.for_bind("0.0.0.0")
    monkeypatch.setenv("SAGA_SERVE_TOKEN", "short")
    with pytest.raises(ConfigurationError, match="shorter"):
        Perimeter.for_bind("192.0.2.7")


def test_with_a_token_every_request_carries_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAGA_SERVE_TOKEN", TOKEN)
    monkeypatch.setenv("SAGA_ALLOWED_HOSTS", "kg.example.org")
    perimeter = Perimeter.for_bind("192.0.2.7")
    assert "token required" in perimeter.notice()
    remote = client(perimeter, "kg.example.org")
    refused = remote.get("/")
    assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Bearer")
    assert remote.get("/", headers={"authorization": "Bearer wrong-token-wrong-token"}).status_code == 401
    assert remote.get("/", headers={"authorization": f"Bearer {TOKEN}"}).text == "hello"
    assert client(perimeter, "192.0.2.7").get("/", headers={"authorization": f"Bearer {TOKEN}"}).status_code == 200
    assert client(perimeter, "evil.example").get("/", headers={"authorization": f"Bearer {TOKEN}"}).status_code == 421
    # The page opened once with ?token= gets a same-site cookie, which its event streams then send.
    opened = remote.get("/", params={"token": TOKEN})
    assert opened.status_code == 200 and "SameSite=Strict" in opened.headers["set-cookie"]
    assert remote.get("/").status_code == 200  # the client now holds the cookie


def test_every_answer_carries_the_page_headers() -> None:
    for reply in (
        client(Perimeter.for_bind("127.0.0.1")).get("/"),
        client(Perimeter.for_bind("127.0.0.1")).get("/", headers={"host": "evil.example"}),
    ):
        assert "frame-ancestors 'none'" in reply.headers["content-security-policy"]
        assert reply.headers["x-frame-options"] == "DENY"
        assert reply.headers["x-content-type-options"] == "nosniff"


def test_runs_beyond_the_cap_get_busy_with_retry_after() -> None:
    release = threading.Event()
    perimeter = Perimeter(
        hosts=frozenset({"127.0.0.1"}), slots=RunSlots(total=3, per_client=2), is_run=lambda m, p: m == "POST"
    )
    wrapped = TestClient(perimeter.wrap(app(release)), base_url="http://127.0.0.1")  # type: ignore[arg-type]
    replies: list[int] = []
    threads = [threading.Thread(target=lambda: replies.append(wrapped.post("/run").status_code)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for _ in range(200):
        if perimeter.slots.running == 2:
            break
        threading.Event().wait(0.02)
    busy = wrapped.post("/run")  # the same client's third run: its per-client cap is 2
    assert busy.status_code == 429 and busy.headers["retry-after"] == "2" and "busy" in busy.json()["error"]
    assert wrapped.get("/").status_code == 200  # what is not a run is not capped
    release.set()
    for thread in threads:
        thread.join(10)
    assert replies == [200, 200] and perimeter.slots.running == 0
    assert wrapped.post("/run").status_code == 200


def test_run_slots_cap_the_face_and_each_client() -> None:
    slots = RunSlots(total=3, per_client=2)
    slots.take("a")
    slots.take("a")
    with pytest.raises(Busy, match="this client"):
        slots.take("a")
    slots.take("b")
    with pytest.raises(Busy, match="3 runs"):
        slots.take("c")
    slots.give_back("a")
    slots.take("c")
    assert slots.running == 3

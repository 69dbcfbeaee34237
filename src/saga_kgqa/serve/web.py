"""``saga serve web``: a local page that asks a named source a question and shows the run step by step.

Routes: ``/`` (the page), ``/api/sources``, ``POST /api/runs`` (start), ``/api/runs`` (history),
``/api/runs/{id}/events`` (server-sent events: live, or the checkpointed run replayed).
Plain HTML and JavaScript from ``web_static/``; no build step and no front-end packages.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from importlib.resources import files
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.serve.web_events import Event
from saga_kgqa.serve.web_request import parse_run_request
from saga_kgqa.serve.web_runs import WebRuns

_STATIC = files("saga_kgqa.serve") / "web_static"
#: Seconds an event stream waits for the next event before it sends a keep-alive comment.
_KEEPALIVE_S = 10.0


def _sse(event: Event) -> str:
    return f"data: {json.dumps(event, ensure_ascii=False)}\n\n"


def build_app(runs: WebRuns, *, allowed_hosts: list[str] | None = None) -> Starlette:
    """The web page's ASGI app over ``runs``.

    Args:
        runs: Starts, follows and reopens runs.
        allowed_hosts: Host headers accepted (loopback names by default: a DNS-rebinding page is refused).
    """

    async def page(_request: Request) -> Response:
        return HTMLResponse(_STATIC.joinpath("index.html").read_text(encoding="utf-8"))

    async def script(_request: Request) -> Response:
        return Response(_STATIC.joinpath("app.js").read_text(encoding="utf-8"), media_type="text/javascript")

    async def sources(_request: Request) -> Response:
        catalog = runs.catalog
        listed = [{"name": name, "title": record.title or name} for name, record in sorted(catalog.sources.items())]
        return JSONResponse({"sources": listed, "default": catalog.default_source, "models": sorted(catalog.models)})

    async def start(request: Request) -> Response:
        # A JSON content type makes a cross-site page's request need a CORS preflight, which is never granted:
        # another site open in the user's browser cannot start runs (and spend the operator's model).
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return JSONResponse({"error": "send Content-Type: application/json"}, status_code=415)
        try:
            body: Any = await request.json()
        except ValueError:
            return JSONResponse({"error": "send a JSON body {question, source, model}"}, status_code=400)
        try:
            asked = parse_run_request(body)
            thread_id = await anyio.to_thread.run_sync(
                runs.start, asked.question, asked.source or None, asked.model or None
            )
        except ConfigurationError as exc:
            return JSONResponse({"error": exc.message}, status_code=400)
        return JSONResponse({"thread_id": thread_id})

    async def history(_request: Request) -> Response:
        return JSONResponse({"runs": await anyio.to_thread.run_sync(runs.history)})

    async def events(request: Request) -> Response:
        thread_id = request.path_params["thread_id"]
        log = runs.live(thread_id)
        if log is None:
            try:
                replay = await anyio.to_thread.run_sync(runs.reopen, thread_id)
            except ConfigurationError as exc:
                return JSONResponse({"error": exc.message}, status_code=404)

            async def replayed() -> AsyncIterator[str]:
                for event in replay:
                    yield _sse(event)

            return StreamingResponse(replayed(), media_type="text/event-stream")

        async def followed() -> AsyncIterator[str]:
            seen = 0
            while True:
                new, done = await anyio.to_thread.run_sync(log.wait, seen, _KEEPALIVE_S)
                seen += len(new)
                for event in new:
                    yield _sse(event)
                if done:
                    return
                if not new:
                    yield ": keep-alive\n\n"

        return StreamingResponse(followed(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    hosts = allowed_hosts or ["127.0.0.1", "localhost", "[::1]"]
    return Starlette(
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
        routes=[
            Route("/", page),
            Route("/app.js", script),
            Route("/api/sources", sources),
            Route("/api/runs", start, methods=["POST"]),
            Route("/api/runs", history, methods=["GET"]),
            Route("/api/runs/{thread_id:str}/events", events),
        ],
    )

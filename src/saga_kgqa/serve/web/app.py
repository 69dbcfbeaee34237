"""``saga serve web``: a local page that asks a named source a question and shows the run step by step.

Routes: ``/`` (the page), ``/api/sources`` (and whether a model is configured), ``POST /api/runs``
(start), ``/api/runs`` (history), ``/api/runs/{id}/events`` (server-sent events: live, or the
checkpointed run replayed), ``POST /api/runs/{id}/cancel``, ``POST /api/runs/{id}/resume`` and
``POST /api/runs/{id}/choose`` (``{"choice": id}``: answers the question a run asks back).
Plain HTML and JavaScript from ``static/``; no build step and no front-end packages. Served
behind :func:`perimeter_for` (Host, Origin, token, page headers); runs beyond the cap and event
streams beyond :data:`MAX_STREAMS` get HTTP 429 with ``Retry-After``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from importlib.resources import files
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.serve.perimeter import Busy, Perimeter, RunSlots
from saga_kgqa.serve.web.events import Event
from saga_kgqa.serve.web.failures import NO_MODEL
from saga_kgqa.serve.web.request import parse_run_request
from saga_kgqa.serve.web.runs import WebRuns

_STATIC = files("saga_kgqa.serve.web") / "static"
#: Seconds an event stream waits for the next event before it sends a keep-alive comment.
_KEEPALIVE_S = 10.0
#: Event streams followed at once: each waits in a worker thread of its own pool, so held streams never
#: starve the pool the other routes use; one more gets a busy answer.
MAX_STREAMS = 64


def _sse(event: Event) -> str:
    return f"data: {json.dumps(event, ensure_ascii=False)}\n\n"


def _busy(exc: Busy) -> Response:
    return JSONResponse({"error": exc.message}, status_code=429, headers={"Retry-After": str(exc.retry_after_s)})


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def perimeter_for(bind: str) -> Perimeter:
    """The page's perimeter (runs are capped by :class:`WebRuns` itself: they outlive their request)."""
    return Perimeter.for_bind(bind)


def build_app(runs: WebRuns, *, max_streams: int = MAX_STREAMS) -> Starlette:
    """The web page's ASGI app over ``runs`` (serve it behind :func:`perimeter_for`).

    Args:
        runs: Starts, follows, cancels, resumes and reopens runs.
        max_streams: Event streams followed at once.
    """
    streams = RunSlots(total=max_streams, per_client=max_streams)
    stream_threads = anyio.CapacityLimiter(max_streams)

    async def page(_request: Request) -> Response:
        return HTMLResponse(_STATIC.joinpath("index.html").read_text(encoding="utf-8"))

    async def script(_request: Request) -> Response:
        return Response(_STATIC.joinpath("app.js").read_text(encoding="utf-8"), media_type="text/javascript")

    async def sources(_request: Request) -> Response:
        catalog = runs.catalog
        listed = [{"name": name, "title": record.title or name} for name, record in sorted(catalog.sources.items())]
        ready = runs.model_ready
        return JSONResponse(
            {
                "sources": listed,
                "default": catalog.default_source,
                "models": sorted(catalog.models),
                "model_ready": ready,
                "no_model": None if ready else NO_MODEL,
            }
        )

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
                runs.start, asked.question, asked.source or None, asked.model or None, _client(request)
            )
        except Busy as exc:
            return _busy(exc)
        except ConfigurationError as exc:
            return JSONResponse({"error": exc.message}, status_code=400)
        return JSONResponse({"thread_id": thread_id})

    async def cancel(request: Request) -> Response:
        stopped = runs.cancel(request.path_params["thread_id"])
        return JSONResponse({"cancelled": stopped}, status_code=200 if stopped else 409)

    async def resume(request: Request) -> Response:
        thread_id = request.path_params["thread_id"]
        try:
            await anyio.to_thread.run_sync(runs.resume, thread_id, _client(request))
        except Busy as exc:
            return _busy(exc)
        except ConfigurationError as exc:
            return JSONResponse({"error": exc.message}, status_code=409)
        return JSONResponse({"thread_id": thread_id})

    async def choose(request: Request) -> Response:
        # JSON only, as for start: another site's page cannot answer a run's question for the user.
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return JSONResponse({"error": "send Content-Type: application/json"}, status_code=415)
        thread_id = request.path_params["thread_id"]
        try:
            body: Any = await request.json()
        except ValueError:
            body = None
        choice = body.get("choice") if isinstance(body, dict) else None
        if not isinstance(choice, str) or not choice.strip() or len(choice) > 500:
            return JSONResponse({"error": "send a JSON body {choice: a candidate's id}"}, status_code=400)
        try:
            await anyio.to_thread.run_sync(runs.resume, thread_id, _client(request), choice)
        except Busy as exc:
            return _busy(exc)
        except ConfigurationError as exc:
            return JSONResponse({"error": exc.message}, status_code=409)
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

        client = _client(request)
        try:
            streams.take(client)
        except Busy as exc:
            return _busy(exc)

        async def followed() -> AsyncIterator[str]:
            try:
                seen = 0
                while True:
                    new, done = await anyio.to_thread.run_sync(log.wait, seen, _KEEPALIVE_S, limiter=stream_threads)
                    seen += len(new)
                    for event in new:
                        yield _sse(event)
                    if done:
                        return
                    if not new:
                        yield ": keep-alive\n\n"
            finally:
                streams.give_back(client)

        return StreamingResponse(followed(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    return Starlette(
        routes=[
            Route("/", page),
            Route("/app.js", script),
            Route("/api/sources", sources),
            Route("/api/runs", start, methods=["POST"]),
            Route("/api/runs", history, methods=["GET"]),
            Route("/api/runs/{thread_id:str}/events", events),
            Route("/api/runs/{thread_id:str}/cancel", cancel, methods=["POST"]),
            Route("/api/runs/{thread_id:str}/resume", resume, methods=["POST"]),
            Route("/api/runs/{thread_id:str}/choose", choose, methods=["POST"]),
        ],
    )

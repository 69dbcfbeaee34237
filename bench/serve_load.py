"""Load on every served face: fresh servers, N concurrent loopback clients, errors, p50/p99, MCP memory.

Faces (each a fresh process on a free loopback port): ``saga mcp --http`` (a mix of search,
lookup, execute, patterns and now and then ask), ``saga serve text2sparql --answerer
gold-replay`` (CK25 questions; a fresh server per level so no answer comes from an earlier
record), ``saga serve web`` (start a run, follow its event stream to the end) and ``langgraph
dev`` (one run per request through the HTTP API). Runs that need a model call a loopback
mock of the chat-completions protocol that answers by the request's shape (answer type, then
one ``execute``, then ``stop``), so the real ChatOpenAI path is exercised and nothing leaves
the machine.

For N = 1, 8, 32 concurrent clients (``--clients 64``: N = 1 and 64; each ``--requests``
requests), it reports errors (must be 0), mixed answers (an answer carrying another request's
nonce, question or gold query: must be 0), "busy" answers (HTTP 429, retried after
``Retry-After``; the faces cap concurrent runs by design), p50/p99 latency and their ratio to
N = 1, and each saga face's RSS after one request and after the load. The MCP and web faces'
catalog holds a hostile source beside the example graph (``serve_load_hostile``): the MCP mix
calls tools on it, and a hostile marker in any answer is an error. Then ``saga mcp --http`` answers
``--mcp-calls`` calls across ``--mcp-sessions`` sessions (each opened and closed by the
client) and its RSS is read before and after. Held out: the text2sparql face asks the
odd-numbered CK25 questions; nothing in the faces was tuned on them. Bounded: every request
has a timeout and the whole run ``--budget-s``.

    .venv/bin/python bench/serve_load.py --data-dir ../shared/data

Ends with one line ``RESULT face_errors_nN=… face_mixed_nN=… face_rss_ratio=… …``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.support, when run as a script

from saga_kgqa.benchmarks.loaders import load_benchmark  # noqa: E402
from tests.support.langgraph_dev import langgraph_dev  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the modules beside this file, run as a script
from saga_kgqa.config.settings import example_graph_path  # noqa: E402
from serve_load_hostile import MixedAnswer, check_nonce, hostile_catalog, hostile_endpoint, leaks  # noqa: E402
from serve_load_servers import QUERY, QUESTION, Server, mock_model, saga_server  # noqa: E402
from smoke import shrink  # noqa: E402

CK25 = "https://text2sparql.aksw.org/2025/corporate/"
HOSTILE_QUERY = "SELECT ?s ?n WHERE { ?s ?p ?n } LIMIT 3"
_BUSY_TOOL = re.compile(r"^busy:.*retry after (\d+(?:\.\d+)?) s", re.DOTALL)
REQUEST_TIMEOUT_S = 120.0
BUSY_RETRIES = 60


# ---------------------------------------------------------------- load


@dataclass
class Level:
    """What N concurrent clients saw."""

    clients: int
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    mixed: int = 0
    busy: int = 0
    first_error: str = ""

    def percentile(self, q: float) -> float:
        """The ``q`` quantile of the latencies (NaN without any)."""
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class BusyAnswer(Exception):
    """The face answered HTTP 429: retry after the seconds it said."""

    def __init__(self, retry_after_s: float) -> None:
        super().__init__("busy")
        self.retry_after_s = retry_after_s


def check(reply: httpx.Response) -> httpx.Response:
    """The reply, or :class:`BusyAnswer` for a 429, or an error for any other failure status."""
    if reply.status_code == 429:
        raise BusyAnswer(float(reply.headers.get("retry-after", "1")))
    reply.raise_for_status()
    return reply


async def run_levels(
    levels: list[int], requests: int, one: Callable[[int, int], Awaitable[None]], server: Server | None = None
) -> tuple[list[Level], dict[str, float]]:
    """One request, then each level; the server's RSS at its start, after that one request and after the load.

    The start the RSS after the load is compared with is the RSS after ONE request (a server that opens
    what it needs at its start, as every saga face does, has nothing more to grow into on first use): what
    grows with the requests or with concurrency (a leak, caches without bound, per-thread arenas) shows.
    """
    memory = {"rss_server_start_mb": round(server.rss_mb(), 1)} if server is not None else {}
    await run_level(1, 1, one)
    if server is not None:
        memory["rss_start_mb"] = round(server.rss_mb(), 1)
    seen = [await run_level(n, requests, one) for n in levels]
    if server is not None:
        memory["rss_after_mb"] = round(server.rss_mb(), 1)
        memory["rss_ratio"] = round(memory["rss_after_mb"] / memory["rss_start_mb"], 3)
    return seen, memory


async def run_level(clients: int, requests: int, one: Callable[[int, int], Awaitable[None]]) -> Level:
    """``clients`` concurrent clients, each sending ``requests`` requests one after another."""
    level = Level(clients)

    async def client(number: int) -> None:
        for index in range(requests):
            started = time.perf_counter()
            for _attempt in range(BUSY_RETRIES):
                try:
                    await asyncio.wait_for(one(number, index), REQUEST_TIMEOUT_S)
                except BusyAnswer as busy:
                    level.busy += 1
                    await asyncio.sleep(busy.retry_after_s)
                    continue
                except MixedAnswer as mixed:
                    level.mixed += 1
                    level.first_error = level.first_error or f"mixed: {mixed}"[:300]
                except Exception as exc:  # counted, and the first one shown (a task group's first cause)
                    level.errors += 1
                    cause: BaseException = exc
                    while isinstance(cause, BaseExceptionGroup) and cause.exceptions:
                        cause = cause.exceptions[0]
                    level.first_error = level.first_error or f"{type(cause).__name__}: {cause!r}"[:300]
                else:
                    level.latencies.append(time.perf_counter() - started)
                break

    await asyncio.gather(*(client(n) for n in range(clients)))
    return level


# ---------------------------------------------------------------- faces


def text2sparql_request(
    client: httpx.AsyncClient, questions: list[str], gold: dict[str, str]
) -> Callable[[int, int], Awaitable[None]]:
    """One TEXT2SPARQL question; the answer must be the protocol's JSON, for this question (its gold replayed)."""

    async def one(number: int, index: int) -> None:
        text = questions[(number * 7 + index) % len(questions)]
        body = check(await client.get("/", params={"dataset": CK25, "question": text})).json()
        if set(body) != {"dataset", "question", "query"}:
            raise ValueError(f"not the protocol's answer: {body}")
        others = {query for asked, query in gold.items() if asked != text and query != gold.get(text)}
        if body["question"] != text or (body["query"] != gold.get(text) and body["query"] in others):
            raise MixedAnswer(f"asked {text[:60]!r}, answered {body['question'][:60]!r} with another's query")

    return one


def web_request(client: httpx.AsyncClient) -> Callable[[int, int], Awaitable[None]]:
    """Start one page run and follow its event stream to the end; it must answer."""

    async def one(number: int, index: int) -> None:
        nonce = f"{number}-{index}"
        asked = {"question": f"{QUESTION} #nonce-{nonce}", "source": "example"}
        started = check(await client.post("/api/runs", json=asked)).json()
        async with client.stream("GET", f"/api/runs/{started['thread_id']}/events") as stream:
            check(stream)
            final = None
            async for line in stream.aiter_lines():
                if line.startswith("data: "):
                    event = json.loads(line[6:])
                    if event["kind"] == "error":
                        raise RuntimeError(event["message"])
                    final = event if event["kind"] == "final" else final
        if final is None or final["status"] != "answered":
            raise RuntimeError(f"the run did not answer: {final}")
        check_nonce(nonce, final["sparql"])

    return one


def langgraph_request(client: httpx.AsyncClient) -> Callable[[int, int], Awaitable[None]]:
    """One run through the LangGraph HTTP API (a new thread, ``runs/wait``); it must answer."""

    async def one(number: int, index: int) -> None:
        thread = check(await client.post("/threads", json={})).json()
        question = f"{QUESTION} #nonce-{number}-{index}"
        body = {"assistant_id": "saga", "input": {"question": question}, "context": {"max_steps": 5}}
        output = check(await client.post(f"/threads/{thread['thread_id']}/runs/wait", json=body)).json()
        if output.get("status") != "answered":
            raise RuntimeError(f"the run did not answer: {str(output)[:200]}")
        check_nonce(f"{number}-{index}", output.get("final_sparql"))

    return one


def tool_name(names: set[str], base: str) -> str:
    """The served name of a tool (plain, or namespaced as ``kg_search``)."""
    return next((n for n in (base, f"kg_{base}", f"saga_{base}") if n in names), base)


async def mcp_calls(url: str, calls: int, *, with_ask: bool, nonce: str = "0-0", hostile: bool = False) -> None:
    """One session: ``calls`` tool calls in the realistic mix (with ``hostile``, two on the hostile source).

    Raises on an error result of the example source, on a hostile marker in any answer, and
    :class:`MixedAnswer` when the search's echo is not this request's.
    """
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    busy_after: float | None = None
    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = {tool.name for tool in (await session.list_tools()).tools}
        searched = f"Jim Lovell #nonce-{nonce}"
        mix: list[tuple[str, dict[str, Any]]] = [
            (tool_name(names, "search"), {"text": searched}),
            (tool_name(names, "lookup"), {"entity": "ex:JimLovell"}),
            (tool_name(names, "execute"), {"sparql": QUERY}),
            (tool_name(names, "patterns"), {"entity": "ex:JimLovell", "question": QUESTION}),
        ]
        if hostile:  # early in the mix, so every session of five calls reaches them
            mix[1:1] = [
                (
                    tool_name(names, "execute"),
                    {"sparql": "SELECT ?s ?n WHERE { ?s ?p ?n } LIMIT 3", "source": "hostile"},
                ),
                (tool_name(names, "source_summary"), {"source": "hostile"}),
            ]
        if with_ask and tool_name(names, "ask") in names:
            mix.append((tool_name(names, "ask"), {"question": QUESTION}))
        for index in range(calls):
            name, args = mix[index % len(mix)]
            result = await session.call_tool(name, args)
            shown = " ".join(getattr(part, "text", "") for part in result.content)
            found = leaks(shown, json.dumps(result.structured_content or {}, ensure_ascii=False))
            if found:
                raise RuntimeError(f"{name}: hostile text reached the answer: {found}")
            if args.get("text") == searched:
                check_nonce(nonce, (result.structured_content or {}).get("query", ""))
            if result.is_error and args.get("source") != "hostile":
                text = " ".join(getattr(part, "text", "") for part in result.content)
                busy = _BUSY_TOOL.search(text)
                if busy:  # the face's run cap said "busy, retry after N s": a busy answer, not an error
                    busy_after = float(busy.group(1))
                    break
                raise RuntimeError(f"{name}: {text[:200]}")
    if busy_after is not None:  # raised outside the session, so no task group wraps it
        raise BusyAnswer(busy_after)


def mcp_request(url: str) -> Callable[[int, int], Awaitable[None]]:
    """One MCP session of five calls (the first of every fourth client includes ``ask``)."""

    async def one(number: int, index: int) -> None:
        await mcp_calls(url, 5, with_ask=index == 0 and number % 4 == 0, nonce=f"{number}-{index}", hostile=True)

    return one


async def mcp_sessions(url: str, sessions: int, calls: int, concurrency: int, done: dict[str, int]) -> None:
    """``sessions`` sessions of ``calls // sessions`` calls, ``concurrency`` at a time; counts into ``done``."""
    gate = asyncio.Semaphore(concurrency)
    per_session = max(1, calls // sessions)

    async def session() -> None:
        async with gate:
            try:
                await mcp_calls(url, per_session, with_ask=False)
            except Exception:
                done["errors"] += 1
            else:
                done["calls"] += per_session
            done["sessions"] += 1

    await asyncio.gather(*(session() for _ in range(sessions)))


# ---------------------------------------------------------------- main


def summarise(face: str, levels: list[Level]) -> dict[str, Any]:
    """Per level: requests, errors, busy answers, p50/p99 and their ratio to the first level."""
    base = levels[0]
    out: dict[str, Any] = {"face": face}
    for level in levels:
        out[f"n{level.clients}"] = {
            "requests": len(level.latencies) + level.errors,
            "errors": level.errors,
            "mixed": level.mixed,
            "busy": level.busy,
            "p50_s": round(level.percentile(0.5), 3),
            "p99_s": round(level.percentile(0.99), 3),
            "p50_ratio": round(level.percentile(0.5) / base.percentile(0.5), 2),
            "p99_ratio": round(level.percentile(0.99) / base.percentile(0.99), 2),
            "first_error": level.first_error,
        }
    return out


async def bench(args: argparse.Namespace, model_url: str, scratch: Path, report: dict[str, Any]) -> None:
    """Every face chosen, then the MCP memory run; results go into ``report`` as each part finishes."""
    levels = [int(n) for n in args.levels.split(",")]
    model_env = {"SAGA_BASE_URL": model_url, "SAGA_MODEL": "mock", "SAGA_API_KEY": "unused"}
    faces = set(args.faces.split(","))
    timeout = httpx.Timeout(REQUEST_TIMEOUT_S)
    # The MCP and web faces serve the example graph beside a hostile source (serve_load_hostile).
    hostile = {"SAGA_CATALOG": str(hostile_catalog(scratch / "hostile.toml", example_graph_path(), args.hostile_url))}

    # The perimeter caps runs per client address; the bench's clients are distinct but all share 127.0.0.1,
    # so the per-address cap is raised to the face's total (which still bounds the runs in flight).
    # Each MCP client holds one call at a time, with its session's opening and closing POSTs beside it: the
    # face's total is raised to twice the clients, since a 429 reaches the SDK client as a bare MCPError.
    cap = str(max(64, 2 * max(levels)))
    shared_address = {"SAGA_MAX_RUNS_PER_CLIENT": cap, "SAGA_MAX_RUNS": cap}
    if "mcp" in faces:
        with saga_server(["mcp", "--http"], model_env | shared_address | hostile) as server:
            seen, memory = await run_levels(levels, args.requests, mcp_request(server.url), server)
            report["faces"].append(summarise("mcp", seen) | memory | {"threads_after": server.threads()})
    if "text2sparql" in faces:
        graph = args.data_dir / "text2sparql_ck25" / "prod-inst.ttl"
        catalog = scratch / "catalog.toml"
        catalog.write_text(f'[sources.corporate]\ndata = ["{graph}"]\n', encoding="utf-8")
        ck25 = load_benchmark("ck25", args.data_dir).questions
        held_out = [q.question for q in ck25][1::2]
        gold = {q.question: q.gold_sparql or "" for q in ck25}
        seen, memory = [], {}
        for n in levels:  # a fresh server (and record file) per level: every answer is computed
            out = scratch / f"t2s-{n}.jsonl"
            argv = ["serve", "text2sparql", "--out", str(out), "--dataset", f"{CK25}=corporate"]
            argv += ["--answerer", "gold-replay", "--benchmark", "ck25", "--data-dir", str(args.data_dir)]
            with saga_server(argv, {"SAGA_CATALOG": str(catalog)}) as server:
                async with httpx.AsyncClient(base_url=server.url, timeout=timeout) as client:
                    one = text2sparql_request(client, held_out[len(held_out) // 2 :], gold)
                    await run_level(1, 1, one)  # one request, on a question the level does not ask (see run_levels)
                    asked = held_out[: len(held_out) // 2]
                    memory = {"rss_start_mb": round(server.rss_mb(), 1)}
                    seen.append(await run_level(n, args.requests, text2sparql_request(client, asked, gold)))
                    memory["rss_after_mb"] = round(server.rss_mb(), 1)
                    memory["rss_ratio"] = round(memory["rss_after_mb"] / memory["rss_start_mb"], 3)
        report["faces"].append(summarise("text2sparql", seen) | memory)  # the RSS of the last (largest) level
    if "web" in faces:
        argv = ["serve", "web", "--checkpoints", str(scratch / "web.sqlite")]
        with saga_server(argv, model_env | hostile) as server:
            async with httpx.AsyncClient(base_url=server.url, timeout=timeout) as client:
                seen, memory = await run_levels(levels, args.requests, web_request(client), server)
            report["faces"].append(summarise("web", seen) | memory | {"threads_after": server.threads()})
    if "langgraph" in faces:
        workdir = scratch / "langgraph"
        workdir.mkdir()
        with langgraph_dev(ROOT / "langgraph.json", workdir, model_env) as dev:
            async with httpx.AsyncClient(base_url=dev.url, timeout=timeout) as client:
                seen, _ = await run_levels(levels, args.requests, langgraph_request(client))
        report["faces"].append(summarise("langgraph", seen))
    if "mcp" in faces and args.mcp_calls:
        with saga_server(["mcp", "--http"], {}) as server:
            await mcp_sessions(server.url, 1, 5, 1, {"calls": 0, "errors": 0, "sessions": 0})  # warm-up
            done = {"calls": 0, "errors": 0, "sessions": 0}
            memory: dict[str, Any] = {"planned_calls": args.mcp_calls, "planned_sessions": args.mcp_sessions}
            memory["rss_mb_before"] = round(server.rss_mb(), 1)
            report["mcp_memory"] = memory
            started = time.perf_counter()

            async def watch() -> None:  # the figures so far, kept current in case the budget runs out
                while True:
                    memory.update({f"{k}_done": v for k, v in done.items()})
                    memory.update(rss_mb_after=round(server.rss_mb(), 1), threads_after=server.threads())
                    memory["seconds"] = round(time.perf_counter() - started, 1)
                    await asyncio.sleep(2)

            watcher = asyncio.create_task(watch())
            try:
                await mcp_sessions(server.url, args.mcp_sessions, args.mcp_calls, args.mcp_concurrency, done)
            finally:
                watcher.cancel()
            memory |= {f"{k}_done": v for k, v in done.items()}
            memory |= {"rss_mb_after": round(server.rss_mb(), 1), "threads_after": server.threads()}
            memory["seconds"] = round(time.perf_counter() - started, 1)


def main() -> None:
    """Parse the options, run, print the report and the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--levels", default="1,8,32", help="Concurrent clients per level (the first is the base).")
    parser.add_argument("--clients", type=int, default=None, help="Shorthand for --levels 1,N.")
    parser.add_argument("--requests", type=int, default=3, help="Requests per client per level.")
    parser.add_argument("--faces", default="mcp,text2sparql,web,langgraph")
    parser.add_argument("--mcp-calls", type=int, default=10_000)
    parser.add_argument("--mcp-sessions", type=int, default=500)
    parser.add_argument("--mcp-concurrency", type=int, default=8)
    parser.add_argument("--budget-s", type=float, default=3600.0, help="Wall-clock bound of the whole bench.")
    args = parser.parse_args()
    if args.clients is not None:
        args.levels = f"1,{args.clients}"
    # Smoke: one level of 2 clients (after the one request every face gets first), so one text2sparql server.
    shrink(args, levels="2", requests=1, mcp_calls=min(args.mcp_calls, 20), mcp_sessions=2, mcp_concurrency=2)
    args.data_dir = args.data_dir.resolve()  # written into a catalog elsewhere: a relative path would not hold
    report: dict[str, Any] = {"faces": [], "cpus": os.cpu_count(), "load_average": os.getloadavg()}
    with (
        tempfile.TemporaryDirectory(prefix="serve-load-") as scratch,
        mock_model() as model_url,
        hostile_endpoint() as args.hostile_url,
    ):
        try:
            asyncio.run(asyncio.wait_for(bench(args, model_url, Path(scratch), report), args.budget_s))
        except TimeoutError:
            report["budget_spent"] = f"stopped after --budget-s {args.budget_s:.0f}: the parts not shown did not finish"
    print(json.dumps(report, indent=2))
    top = max(int(n) for n in args.levels.split(","))
    fields = []
    for face in report["faces"]:
        level = face[f"n{top}"]
        fields += [
            f"{face['face']}_errors_n{top}={level['errors']}",
            f"{face['face']}_mixed_n{top}={level['mixed']}",
            f"{face['face']}_busy_n{top}={level['busy']}",
            f"{face['face']}_p99_ratio_n{top}={level['p99_ratio']}",
        ]
        if "rss_ratio" in face:
            fields.append(f"{face['face']}_rss_ratio={face['rss_ratio']}")
    memory = report.get("mcp_memory")
    if memory:
        fields += [
            f"mcp_calls={memory.get('calls_done', 0)}",
            f"mcp_sessions={memory.get('sessions_done', 0)}",
            f"mcp_session_errors={memory.get('errors_done', 0)}",
            f"mcp_rss_mb_before={memory['rss_mb_before']}",
            f"mcp_rss_mb_after={memory.get('rss_mb_after')}",
        ]
    if "budget_spent" in report:
        fields.append("budget_spent=1")
    print("RESULT " + " ".join(fields))


if __name__ == "__main__":
    main()

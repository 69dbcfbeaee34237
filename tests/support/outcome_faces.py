"""Scripted runs asked through every face, each face's reported outcome read back (issue 37's fault matrix).

One catalog names the graph three times (``ck25``: embedded; ``ck25_timeout`` and ``ck25_error``:
behind :mod:`tests.support.fault_endpoint`, whose queries naming the fault IRI time out or fail)
and one model (``scripted``: :mod:`tests.support.keyed_models`, each run's script picked by the
case key its question carries). Each face is driven as its users drive it: ``saga ask --json``
(in process), ``saga mcp`` over stdio with the official SDK client, the TEXT2SPARQL app, the web
page's HTTP API, and ``langgraph dev`` through ``langgraph_sdk``. Used by ``bench/outcomes.py``
and by the face tests.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.fault_endpoint import FAULT_IRI, fault_endpoint
from tests.support.keyed_models import SCRIPTS_ENV, case_question
from tests.support.scripted_model import answer_type

REPO_ROOT = Path(__file__).resolve().parents[2]
PV = "http://ld.company.org/prod-vocab/"
SUPPLIERS = f"SELECT ?s WHERE {{ ?s a <{PV}Supplier> }}"
NOBODY = f'SELECT ?s WHERE {{ ?s a <{PV}Supplier> ; <{PV}name> "Nobody Here At All" }}'
FAULTY = f"SELECT ?s WHERE {{ ?s a <{PV}Supplier> FILTER(?s != <{FAULT_IRI}>) }}"
EVERYTHING = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }"
FORTY_SEVEN = f"SELECT ?s WHERE {{ ?s a <{PV}Supplier> }} ORDER BY ?s LIMIT 47"
FACES = ("cli", "mcp", "text2sparql", "web", "langgraph")
ANSWERS = frozenset({"answered", "partial"})


def _execute(sparql: str) -> dict[str, Any]:
    return {"tool": "execute", "args": {"sparql": sparql}}


_STOP: dict[str, Any] = {"tool": "stop", "args": {}}


@dataclass(frozen=True)
class Case:
    """One scripted run: the fault it meets, its script, and the outcome every face must report.

    Attributes:
        fault: The fault's name.
        question: The question (the case key is added per face).
        script: The model's replies (``studio_models.script_item`` items).
        expected: The outcome every face must report.
        source: The catalog source it asks.
        final_query: The query a face must report as the run's (when the face reports one).
        rows: The answer's size every face's text must say (``None``: not checked).
    """

    fault: str
    question: str
    script: list[Any]
    expected: str
    source: str = "ck25"
    final_query: str | None = None
    rows: int | None = None


def fault_cases(ambiguous: tuple[str, str]) -> list[Case]:
    """The fault matrix's rows; ``ambiguous`` is a name two entities share and the IRI of the first."""
    name, first = ambiguous
    return [
        Case(
            "final_empty_after_rows",
            "In which department is Mr. Nobody Here?",
            [answer_type("supplier"), _execute(SUPPLIERS), _execute(NOBODY), _STOP, _STOP],
            "empty",
            final_query=NOBODY,
        ),
        Case(
            "endpoint_timeout",
            "Which suppliers?",
            [answer_type("supplier"), _execute(FAULTY), _STOP, _STOP],
            "timed_out",
            source="ck25_timeout",
        ),
        Case(
            "endpoint_5xx",
            "Which suppliers?",
            [answer_type("supplier"), _execute(FAULTY), _STOP, _STOP],
            "failed",
            source="ck25_error",
        ),
        Case(
            "malformed_tool_call",
            "Which suppliers are there?",
            [answer_type("supplier"), {"tool": "drop_all", "args": {"target": "x"}}, _execute(SUPPLIERS), _STOP, _STOP],
            "answered",
            final_query=SUPPLIERS,
        ),
        Case(
            "model_refuses", "Which suppliers?", [answer_type("supplier"), "I cannot help with that.", _STOP], "refused"
        ),
        Case("row_cap", "List every triple.", [answer_type("thing"), _execute(EVERYTHING), _STOP, _STOP], "partial"),
        Case("guard_refusal", "Delete everything.", [answer_type("thing"), _execute("DROP ALL"), _STOP], "refused"),
        Case(
            "ambiguous_entity",
            f"In which country is {name}?",
            [
                answer_type("country"),
                {"tool": "search", "args": {"text": name}},
                _execute(f"SELECT ?c WHERE {{ <{first}> <{PV}addressCountry> ?c }}"),
                _STOP,
                _STOP,
            ],
            "needs_clarification",
        ),
        Case(
            "step_budget_exhausted",
            "Which suppliers are there?",
            [answer_type("supplier"), _execute(SUPPLIERS), *([_execute(SUPPLIERS)] * 25)],
            "partial",
        ),
    ]


def count_cases() -> list[Case]:
    """The runs whose counts every face's text must say: 47 rows (issue 37, point 3)."""
    return [
        Case(
            "forty_seven_rows",
            "Name 47 suppliers.",
            [answer_type("supplier"), _execute(FORTY_SEVEN), _STOP, _STOP],
            "answered",
            final_query=FORTY_SEVEN,
            rows=47,
        ),
    ]


def ambiguous_name(data: Path) -> tuple[str, str]:
    """A name two entities share in the CK25 graph (two suppliers), and the first one's IRI."""
    import pyoxigraph as ox

    store = ox.Store()
    store.bulk_load(path=str(data), format=ox.RdfFormat.TURTLE)
    query = (
        f"SELECT ?n (MIN(STR(?e)) AS ?first) WHERE {{ ?e <{PV}name> ?n }} "
        "GROUP BY ?n HAVING (COUNT(DISTINCT ?e) = 2) ORDER BY ?n LIMIT 1"
    )
    for row in store.query(query):  # type: ignore[union-attr]
        return row["n"].value, row["first"].value
    raise LookupError("no name two entities share")


@dataclass
class Reported:
    """What one face said about one run."""

    status: str
    query: str | None = None
    text: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def key(face: str, case: Case) -> str:
    """The case key of one face's run."""
    return f"{face}/{case.fault}"


@dataclass
class Matrix:
    """The setting every face runs in: the catalog, the scripts, the environment."""

    workdir: Path
    catalog: Path
    scripts: Path
    env: dict[str, str]


@contextmanager
def matrix(workdir: Path, data: Path, cases: Sequence[Case]) -> Iterator[Matrix]:
    """The fault endpoint, a catalog over it and ``data``, and every face's scripts in one file."""
    with fault_endpoint([data]) as base:
        catalog = workdir / "catalog.toml"
        catalog.write_text(
            'default_source = "ck25"\ndefault_model = "scripted"\n'
            f'[sources.ck25]\ndata = ["{data}"]\n'
            f'[sources.ck25_timeout]\nendpoint = "{base}/timeout/sparql"\n'
            f'[sources.ck25_error]\nendpoint = "{base}/error/sparql"\n'
            '[models.scripted]\nfactory = "tests.support.keyed_models:keyed_factory"\n',
            encoding="utf-8",
        )
        scripts = workdir / "scripts.json"
        scripts.write_text(
            json.dumps({key(face, case): case.script for face in (*FACES, "cli-text") for case in cases}),
            encoding="utf-8",
        )
        env = {
            "SAGA_CATALOG": str(catalog),
            SCRIPTS_ENV: str(scripts),
            "SAGA_MODEL_FACTORY": "tests.support.keyed_models:keyed_factory",
            "PYTHONPATH": str(REPO_ROOT),
            "LANGSMITH_TRACING": "false",
        }
        yield Matrix(workdir, catalog, scripts, env)


@contextmanager
def _environ(values: Mapping[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run_cli(setting: Matrix, cases: Sequence[Case]) -> dict[str, Reported]:
    """``saga ask --json --source S`` per case, in process: the JSON status, checked against the exit code."""
    from typer.testing import CliRunner

    from saga_kgqa.cli import app
    from saga_kgqa.cli.ask.command import EXIT_STATUS

    by_code = {code: status for status, code in EXIT_STATUS.items()}
    out: dict[str, Reported] = {}
    with _environ(setting.env):
        for case in cases:
            args = ["ask", case_question(case.question, key("cli", case)), "--source", case.source, "--json", "--quiet"]
            args += ["--checkpoint-db", str(setting.workdir / "cli.sqlite")]
            done = CliRunner().invoke(app, args)
            try:
                data = json.loads(done.stdout)
            except ValueError:
                out[case.fault] = Reported(f"no JSON (exit {done.exit_code})", text=done.output[-500:])
                continue
            status = str(data.get("status"))
            if by_code.get(done.exit_code) != status:
                status = f"{status} (exit {done.exit_code})"
            rows = (data.get("outcome") or {}).get("rows", {}).get("total")
            out[case.fault] = Reported(status, data.get("final_sparql"), json.dumps(data)[:2000], {"rows": rows})
            if case.rows is not None:
                text_args = ["ask", case_question(case.question, key("cli-text", case)), "--source", case.source]
                plain = CliRunner().invoke(app, [*text_args, "--quiet", *args[-2:]])
                out[case.fault].text = plain.stdout
    return out


def run_mcp(setting: Matrix, cases: Sequence[Case]) -> dict[str, Reported]:
    """``kg_ask`` per case over stdio with the official MCP SDK client: the structured status, and the text."""
    from tests.support.mcp_servers import stdio_session

    async def main() -> dict[str, Reported]:
        found: dict[str, Reported] = {}
        async with stdio_session(env=setting.env) as session:
            for case in cases:
                question = case_question(case.question, key("mcp", case))
                result = await session.call_tool("kg_ask", {"question": question, "source": case.source})
                data = result.structured_content or {}
                text = "".join(getattr(part, "text", "") for part in result.content)
                status = str(data.get("status") or f"error: {text[:200]}")
                found[case.fault] = Reported(status, data.get("sparql"), text, {"rows": data.get("row_count")})
        return found

    return asyncio.run(main())


def run_text2sparql(setting: Matrix, cases: Sequence[Case]) -> dict[str, Reported]:
    """The TEXT2SPARQL app per case: the ``Saga-Outcome`` header beside the challenge's reply."""
    from starlette.testclient import TestClient

    from saga_kgqa.config.catalog import Catalog
    from saga_kgqa.serve.text2sparql.app import OUTCOME_HEADER, BestQueries, Text2SparqlService, build_app
    from saga_kgqa.serve.text2sparql.main import AnswererKind, answerer_factory

    out: dict[str, Reported] = {}
    with _environ(setting.env):
        catalog = Catalog.from_env()
        best = BestQueries()
        datasets = {f"https://bench.example/{name}/": name for name in catalog.sources}
        service = Text2SparqlService(
            datasets=datasets,
            answerer_for=answerer_factory(catalog, AnswererKind.AGENT, "scripted", best),
            predictions=setting.workdir / "text2sparql.jsonl",
            config={"face": "text2sparql", "bench": "outcomes"},
            seconds=120.0,
            grace_s=5.0,
            shape_answers=False,
            best=best,
        )
        client = TestClient(build_app(service))
        for case in cases:
            question = case_question(case.question, key("text2sparql", case))
            reply = client.get("/", params={"dataset": f"https://bench.example/{case.source}/", "question": question})
            body = reply.json()
            status = reply.headers.get(OUTCOME_HEADER.lower(), f"no header (HTTP {reply.status_code})")
            out[case.fault] = Reported(status, body.get("query") or None, json.dumps(body))
    return out


def _events(client: Any, thread_id: str) -> list[dict[str, Any]]:
    events = []
    with client.stream("GET", f"/api/runs/{thread_id}/events") as reply:
        for line in reply.iter_lines():
            if line.startswith("data: "):
                event = json.loads(line[6:])
                events.append(event)
                if event.get("kind") == "end":
                    break
    return events


def run_web(setting: Matrix, cases: Sequence[Case]) -> dict[str, Reported]:
    """The web page's HTTP API per case: start a run, follow its events, read the final event."""
    from starlette.testclient import TestClient

    from saga_kgqa.config.catalog import Catalog
    from saga_kgqa.serve.web.app import build_app
    from saga_kgqa.serve.web.runs import WebRuns

    out: dict[str, Reported] = {}
    with _environ(setting.env):
        runs = WebRuns(Catalog.from_env(), setting.workdir / "web.sqlite")
        try:
            client = TestClient(build_app(runs))
            for case in cases:
                question = case_question(case.question, key("web", case))
                started = client.post("/api/runs", json={"question": question, "source": case.source})
                thread_id = started.json().get("thread_id")
                if thread_id is None:
                    out[case.fault] = Reported(f"not started: {started.text[:200]}")
                    continue
                events = _events(client, thread_id)
                # A run that asks back ends its events with the question instead of a final answer.
                final = next((e for e in events if e.get("kind") in ("final", "clarify")), None)
                if final is None:
                    errors = [e.get("message") for e in events if e.get("kind") == "error"]
                    out[case.fault] = Reported(f"no final event: {errors}")
                    continue
                out[case.fault] = Reported(
                    str(final.get("status")), final.get("sparql"), str(final.get("counts") or ""), {"final": final}
                )
        finally:
            runs.close()
    return out


def run_langgraph(setting: Matrix, cases: Sequence[Case]) -> dict[str, Reported]:
    """``langgraph dev`` with the project's ``langgraph.json``, each case run through ``langgraph_sdk``."""
    from langgraph_sdk import get_sync_client

    from tests.support.langgraph_dev import langgraph_dev

    out: dict[str, Reported] = {}
    workdir = setting.workdir / "langgraph"
    workdir.mkdir(exist_ok=True)
    with langgraph_dev(REPO_ROOT / "langgraph.json", workdir, setting.env) as server:
        client = get_sync_client(url=server.url)
        for case in cases:
            thread = client.threads.create()
            question = case_question(case.question, key("langgraph", case))
            try:
                values = client.runs.wait(
                    thread["thread_id"],
                    "saga",
                    input={"question": question},
                    context={"source": case.source, "model": "scripted"},
                )
            except Exception as exc:  # an SDK error is what this face reported
                out[case.fault] = Reported(f"error: {type(exc).__name__}: {str(exc)[:200]}")
                continue
            data = values if isinstance(values, dict) else {}
            answer = data.get("answer") or {}
            outcome = data.get("outcome") or {}
            text = str(answer.get("text") or "")
            rows = (outcome.get("rows") or {}).get("total")
            status = str(data.get("status"))
            # A run that asks back pauses on a LangGraph interrupt carrying the candidates (kind "clarify").
            waiting = client.threads.get_state(thread["thread_id"]).get("interrupts") or []
            if any((item.get("value") or {}).get("kind") == "clarify" for item in waiting):
                status = "needs_clarification"
            out[case.fault] = Reported(status, data.get("final_sparql"), text, {"rows": rows})
    return out


def _same_query(left: str | None, right: str | None) -> bool:
    return " ".join((left or "").split()) == " ".join((right or "").split())


def judge(case: Case, reported: Reported | None) -> tuple[bool, str]:
    """Whether a face reported this run right, and why not."""
    if reported is None:
        return False, "no report"
    if reported.status != case.expected:
        return False, f"reported {reported.status!r}, expected {case.expected!r}"
    if (
        case.final_query is not None
        and reported.query is not None
        and not _same_query(reported.query, case.final_query)
    ):
        return False, f"reported query {reported.query[:80]!r} is not the last one executed"
    rows = reported.extra.get("rows")
    if case.expected == "empty" and rows not in (None, 0):
        return False, f"an empty run listed {rows} row(s)"
    return True, ""


def says_count(face: str, case: Case, reported: Reported | None) -> bool | None:
    """Whether a face's text says the answer's size (``None``: the face's reply has no text for rows)."""
    if case.rows is None or face == "text2sparql" or reported is None:
        return None
    number = str(case.rows)
    counts = re.findall(r"(\d+)\+? rows?(?![(\w])", reported.text)  # not "20 row(s)" of another line
    structured = reported.extra.get("rows")
    return bool(counts) and all(found == number for found in counts) and structured in (None, case.rows)


DRIVERS = {
    "cli": run_cli,
    "mcp": run_mcp,
    "text2sparql": run_text2sparql,
    "web": run_web,
    "langgraph": run_langgraph,
}

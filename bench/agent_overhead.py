"""Agent overhead per step: the controller's own time beside the tools' time, with a model that answers at once.

The agent graph runs questions as ``saga ask`` and the served faces run them (``stream_run``, every step
checkpointed with ``durability="sync"``, one compiled graph per store) with a scripted model
(``tests/support/scripted_model.py``) whose answers cost nothing, so what is left of each step besides
its tool is the controller's own work: LangGraph's scheduling and checkpointing, state updates, prompt
building, the knowledge log, finalize. Two stores:

* **CK25** (``text2sparql_ck25``'s product graph): each reference question gets a script of
  search (its first words), lookup (the first IRI of its gold query), examples (the gold's first
  ``pv:`` property) and execute (the gold query), then stop.
* **a 10M-triple store** (``bench/scale_graph.py``, loaded by ``saga load``; ``--big-store DIR``
  reuses one): per sampled entity, search (its label), lookup, examples (``rdfs:label``) and
  execute (its outgoing triples).

A step is one action the model chose (a tool node's call of a tool): from the end of the tool
before it (or the run's start) to the end of its own tool, the last one lasting to the run's end
(the model's stop, the answer check, finalize and evidence). Its tool time is the time inside the
tool view's methods and the knowledge graph's calls (``check``, ``query``, ``run``, ``execute``:
every guard check and query, whichever node makes it; outermost only, so nothing counts twice);
its model time is the scripted model's own ``_generate``. The graph overhead is the rest: the
controller's own work. Only a tool node's call ends a step: the answer check and finalize run the
final query again through the same tool view, and their calls are tool time of the last step, not
steps of their own. Wall time is the figure; the CPU time of the whole process (every thread;
the store's query worker is a child process and not counted) outside tool and model spans is
reported beside it, since on a shared machine the wall time of thread hand-offs grows with the
load. Reports p50 and p90 per store of the overhead, the tool time and their ratio per step, the
same per action, and the controller's top costs (a profiled extra pass, the profiler paused inside
every tool and model call: the functions with the most own time). Ends with
``RESULT ck25_overhead_ratio_p90=… big_overhead_ratio_p90=… …`` (target ≤ 0.10 on both), with LangGraph's own floor
per step beside them (``langgraph_floor_cpu_ms``: a graph of two nodes that do nothing, a controller and a tool
in a loop of four steps, checkpointed the same way), what no controller built on LangGraph can go below.

Usage: python bench/agent_overhead.py --data-dir ../shared/data [--questions 20] [--big-triples 10M]
       [--big-store DIR] [--scratch DIR] [--no-big]
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import json
import operator
import os
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, TypedDict

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.support, when run as a script
sys.path.insert(0, str(Path(__file__).resolve().parent))  # scale_graph

import yaml  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.types import Durability  # noqa: E402

import scale_graph  # noqa: E402
from saga_kgqa.app.graphs import build_graph  # noqa: E402
from saga_kgqa.app.toolboxes import toolbox_over  # noqa: E402
from saga_kgqa.config.context import SagaContext  # noqa: E402
from saga_kgqa.config.open_options import OpenOptions  # noqa: E402
from saga_kgqa.graph.builder import run_config  # noqa: E402
from saga_kgqa.graph.tool_nodes import ToolNodes  # noqa: E402
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph  # noqa: E402
from saga_kgqa.kg.opening import open_backend  # noqa: E402
from saga_kgqa.runs.stream import RUN_DURABILITY, stream_run  # noqa: E402
from saga_kgqa.state.checkpointing import checkpoint_serde  # noqa: E402
from saga_kgqa.tools.toolbox import SagaToolbox, ToolView  # noqa: E402
from smoke import shrink  # noqa: E402
from tests.support.scripted_model import ScriptedChatModel, ScriptItem, answer_type, tool_call  # noqa: E402

_TOOL_METHODS = ("search", "lookup", "patterns", "examples", "execute", "mentions")
#: The knowledge graph's calls: a guard check, a query, a checked query's run (all tool time wherever made).
_GRAPH_METHODS = ("check", "query", "run", "execute")
#: The tool nodes, whose tool call is a model's action and ends a step.
_TOOL_NODES = ("search", "lookup", "patterns", "examples", "worked_examples", "execute")


@dataclass(frozen=True, slots=True)
class Span:
    """One outermost tool or model call: wall clock and process CPU clock at its start and end."""

    started: float
    ended: float
    cpu: float


@dataclass
class Clock:
    """Spans of tool and model time, recorded from whichever thread runs a node."""

    tool: list[Span] = field(default_factory=list)
    model: list[Span] = field(default_factory=list)
    #: The steps' ends: wall and process CPU clocks where a tool node's tool call ended, and the tool's name.
    actions: list[tuple[float, float, str]] = field(default_factory=list)
    depth: threading.local = field(default_factory=threading.local)
    #: While set, profiling is paused inside every span, so the profile holds the controller's time only.
    profiler: cProfile.Profile | None = None

    @contextmanager
    def span(self, kind: str, name: str) -> Iterator[None]:
        """Record an outermost span of ``kind`` (a tool's nested calls are the outer one's)."""
        depth = getattr(self.depth, "spans", 0)
        self.depth.spans = depth + 1
        profiler = self.profiler if depth == 0 else None
        if profiler is not None:
            profiler.disable()
        cpu_started = time.process_time()
        started = time.perf_counter()
        try:
            yield
        finally:
            self.depth.spans = depth
            if depth == 0:
                ended = time.perf_counter()
                cpu_ended = time.process_time()
                (self.tool if kind == "tool" else self.model).append(Span(started, ended, cpu_ended - cpu_started))
                if kind == "tool" and getattr(self.depth, "in_tool_node", False):
                    self.actions.append((ended, cpu_ended, name))
                if profiler is not None:
                    profiler.enable()

    @contextmanager
    def tool_node(self) -> Iterator[None]:
        """Inside a tool node: its tool call is a model's action."""
        self.depth.in_tool_node = True
        try:
            yield
        finally:
            self.depth.in_tool_node = False


CLOCK = Clock()


def _instrument() -> None:
    """Wrap the tool view's methods, the graph's calls and the scripted model in the clock's spans.

    Before any graph is built: the graph binds the tool nodes' methods when it is compiled.
    """

    def timed(function: Callable[..., Any], kind: str, name: str) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with CLOCK.span(kind, name):
                return function(*args, **kwargs)

        return wrapper

    def node(function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with CLOCK.tool_node():
                return function(*args, **kwargs)

        return wrapper

    for name in _TOOL_METHODS:
        setattr(ToolView, name, timed(getattr(ToolView, name), "tool", name))
    for name in _GRAPH_METHODS:
        setattr(KnowledgeGraph, name, timed(getattr(KnowledgeGraph, name), "tool", f"graph.{name}"))
    for name in _TOOL_NODES:
        setattr(ToolNodes, name, node(getattr(ToolNodes, name)))
    ScriptedChatModel._generate = timed(ScriptedChatModel._generate, "model", "model")  # type: ignore[method-assign]


@dataclass(frozen=True, slots=True)
class Step:
    """One tool step: its wall time and its tool, model and graph-overhead parts, in seconds, and its CPU time."""

    action: str
    wall: float
    tool: float
    model: float
    #: Process CPU time of the step, and of its tool and model spans.
    cpu: float
    tool_cpu: float
    model_cpu: float

    @property
    def overhead(self) -> float:
        """The controller's own time in the step."""
        return max(self.wall - self.tool - self.model, 0.0)

    @property
    def overhead_cpu(self) -> float:
        """The controller's own CPU time in the step (every thread of the process)."""
        return max(self.cpu - self.tool_cpu - self.model_cpu, 0.0)


class Runner:
    """One compiled graph and one model per store, as a server keeps them; each question gets its own script.

    One model object, as the configured model factory hands a process the same model for every run: LangChain
    describes a model object for its callbacks once (``BaseChatModel._serialized``, about 5 ms of CPU for the
    scripted model, whose description holds its script), and a fresh object per question made every first step
    pay that, which no served run does.
    """

    def __init__(self, toolbox: SagaToolbox) -> None:
        """Compile the graph over ``toolbox`` with an in-memory checkpointer."""
        self.model = ScriptedChatModel([])
        self.graph = build_graph(
            model_factory=lambda _context, _role: self.model,
            toolbox_factory=lambda _context: toolbox,
            checkpointer=InMemorySaver(serde=checkpoint_serde()),
        )


def run_question(
    runner: Runner, script: list[ScriptItem], question: str, thread: str, durability: Durability = RUN_DURABILITY
) -> list[Step]:
    """Run one question with checkpoints written as ``durability`` says; its steps (one per tool action)."""
    runner.model.script = list(script)
    runner.model.prompts = []
    graph = runner.graph
    context = SagaContext(clarify="never")  # a benchmark: no caller to ask which entity a name meant
    config = dict(run_config(context, thread_id=thread))
    tools_before, models_before, actions_before = len(CLOCK.tool), len(CLOCK.model), len(CLOCK.actions)
    cpu_started = time.process_time()
    started = time.perf_counter()
    # As `saga ask`, the MCP and web runs drive it: streamed updates, every step checkpointed.
    stream_run(graph, {"question": question}, config, context, [], durability=durability)  # type: ignore[arg-type]
    ended = time.perf_counter()
    cpu_ended = time.process_time()
    status = graph.get_state(config).values.get("status")  # type: ignore[arg-type]
    if status not in {"answered", "empty"}:
        raise SystemExit(f"{question!r} ended {status}: the script no longer fits the graph")
    tools, models = CLOCK.tool[tools_before:], CLOCK.model[models_before:]
    # A step ends where a tool node's tool call ends; the last lasts to the run's end (stop, answer check, finalize).
    ends = CLOCK.actions[actions_before:]
    if not ends:
        raise SystemExit(f"{question!r} ran no tool: the script no longer fits the graph")
    bounds = [(started, cpu_started), *((wall, cpu) for wall, cpu, _ in ends[:-1]), (ended, cpu_ended)]
    steps = []
    for ((low, cpu_low), (high, cpu_high)), (_, _, action) in zip(itertools.pairwise(bounds), ends, strict=True):
        inside = [s for s in tools if low <= s.started < high]
        spoken = [s for s in models if low <= s.started < high]
        steps.append(
            Step(
                action=action,
                wall=high - low,
                tool=sum(s.ended - s.started for s in inside),
                model=sum(s.ended - s.started for s in spoken),
                cpu=cpu_high - cpu_low,
                tool_cpu=sum(s.cpu for s in inside),
                model_cpu=sum(s.cpu for s in spoken),
            )
        )
    return steps


def ck25_cases(data_dir: Path, limit: int) -> list[tuple[str, list[ScriptItem]]]:
    """CK25 reference questions with their scripts (see the module doc)."""
    questions = yaml.safe_load((data_dir / "text2sparql_ck25" / "questions.yml").read_text(encoding="utf-8"))
    cases = []
    for item in questions["questions"]:
        gold = item["query"]["sparql"]
        entity = re.search(r"<(http://ld\.company\.org/prod-instances/[^>]+)>", gold)
        prop = re.search(r"pv:(\w+)", gold)
        if entity is None or prop is None or "SELECT" not in gold:
            continue
        question = item["question"]["en"]
        words = " ".join(re.findall(r"[A-Z][a-z]+", question)[-2:]) or question.split()[-1]
        script: list[ScriptItem] = [
            answer_type("thing"),
            tool_call("search", text=words),
            tool_call("lookup", entity=f"<{entity.group(1)}>"),
            tool_call("examples", property=f"pv:{prop.group(1)}"),
            tool_call("execute", sparql=gold),
            tool_call("stop"),
        ]
        cases.append((question, script))
    return cases[:limit]


def big_cases(entities: int, limit: int) -> list[tuple[str, list[ScriptItem]]]:
    """Questions about sampled entities of the scale graph, with their scripts (seeded sample)."""
    import random

    rng = random.Random(3939)
    cases = []
    for n in rng.sample(range(entities), limit):
        iri, label = scale_graph.entity_iri(n), scale_graph.entity_label(n)
        script: list[ScriptItem] = [
            answer_type("thing"),
            tool_call("search", text=label),
            tool_call("lookup", entity=f"<{iri}>"),
            tool_call("examples", property="rdfs:label"),
            tool_call("execute", sparql=f"SELECT ?p ?o WHERE {{ <{iri}> ?p ?o }}"),
            tool_call("stop"),
        ]
        cases.append((f"What do we know about {label}?", script))
    return cases


def measure(
    name: str, toolbox: SagaToolbox, cases: list[tuple[str, list[ScriptItem]]], durabilities: list[Durability]
) -> dict[str, Any]:
    """Every case as a warm-up, then measured under each durability in turn; figures per durability.

    The durabilities take turns question by question (the first one first on even questions, the
    others first on odd ones), so a load peak falls on both. The first durability's figures are the
    store's own; the others' are under ``by_durability``. A profiled pass of the first durability
    names the top costs.
    """
    runner = Runner(toolbox)
    for durability in durabilities:
        for n, (question, script) in enumerate(cases[:2]):
            run_question(runner, list(script), question, f"{name}-warm-{durability}-{n}", durability)
    steps: dict[str, list[Step]] = {durability: [] for durability in durabilities}
    for n, (question, script) in enumerate(cases):
        turn = n % len(durabilities)
        for durability in [*durabilities[turn:], *durabilities[:turn]]:
            steps[durability].extend(
                run_question(runner, list(script), question, f"{name}-{durability}-{n}", durability)
            )
    profiler = cProfile.Profile()
    CLOCK.profiler = profiler
    profiler.enable()
    for n, (question, script) in enumerate(cases[:5]):
        run_question(runner, list(script), question, f"{name}-profiled-{n}", durabilities[0])
    profiler.disable()
    CLOCK.profiler = None
    report: dict[str, Any] = {"store": name, "questions": len(cases), "durability": durabilities[0]}
    report.update(_figures(steps[durabilities[0]]))
    report["by_durability"] = {durability: _figures(steps[durability]) for durability in durabilities[1:]}
    report["top_costs"] = _top_costs(profiler, 8)
    return report


def _figures(steps: list[Step]) -> dict[str, Any]:
    """Percentiles of the steps' overhead, CPU overhead, tool and model time and their ratio, overall and per action."""
    ratios = [s.overhead / s.tool for s in steps if s.tool > 0]
    per_action = {
        action: {
            "steps": len(group),
            "overhead_ms_p50": _percentiles([s.overhead * 1000 for s in group])["p50"],
            "overhead_cpu_ms_p50": _percentiles([s.overhead_cpu * 1000 for s in group])["p50"],
            "tool_ms_p50": _percentiles([s.tool * 1000 for s in group])["p50"],
            "overhead_ratio": _percentiles([s.overhead / s.tool for s in group if s.tool > 0]),
        }
        for action in dict.fromkeys(s.action for s in steps)
        for group in [[s for s in steps if s.action == action]]
    }
    return {
        "steps": len(steps),
        "overhead_ms": _percentiles([s.overhead * 1000 for s in steps]),
        "overhead_cpu_ms": _percentiles([s.overhead_cpu * 1000 for s in steps]),
        "tool_ms": _percentiles([s.tool * 1000 for s in steps]),
        "model_ms": _percentiles([s.model * 1000 for s in steps]),
        "overhead_ratio": _percentiles(ratios),
        "overhead_share_of_run": round(sum(s.overhead for s in steps) / sum(s.wall for s in steps), 3),
        "per_action": per_action,
    }


class _FloorState(TypedDict, total=False):
    steps: int
    log: Annotated[list[str], operator.add]


def langgraph_floor(durability: Durability, runs: int = 200) -> dict[str, float]:
    """LangGraph's own time per tool step: two nodes that do nothing, four steps a run, checkpointed like a run.

    The controller node counts the steps, the tool node appends to a list channel (as tools append to the
    history); ``stream_mode="updates"``, the run's ``durability``, an in-memory saver with saga's serde.
    """

    def controller(state: _FloorState) -> dict[str, Any]:
        return {"steps": state.get("steps", 0) + 1}

    def tool(_state: _FloorState) -> dict[str, Any]:
        return {"log": ["step"]}

    def route(state: _FloorState) -> str:
        return "tool" if state.get("steps", 0) <= 4 else END

    builder = StateGraph(_FloorState)
    builder.add_node("controller", controller)
    builder.add_node("tool", tool)
    builder.add_edge(START, "controller")
    builder.add_conditional_edges("controller", route)
    builder.add_edge("tool", "controller")
    graph = builder.compile(checkpointer=InMemorySaver(serde=checkpoint_serde()))
    cpu, wall = [], []
    for n in range(runs + 20):
        config: Any = {"configurable": {"thread_id": f"floor-{n}"}}
        cpu_started, started = time.process_time(), time.perf_counter()
        for _ in graph.stream({"steps": 0}, config, stream_mode="updates", durability=durability):
            pass
        if n >= 20:  # after a warm-up
            cpu.append((time.process_time() - cpu_started) / 4 * 1000)
            wall.append((time.perf_counter() - started) / 4 * 1000)
    return {"cpu_ms_p50": round(statistics.median(cpu), 3), "wall_ms_p50": round(statistics.median(wall), 3)}


def _percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"p50": float("nan"), "p90": float("nan"), "max": float("nan")}
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered), 4), "p90": round(p90, 4), "max": round(ordered[-1], 4)}


def _top_costs(profiler: cProfile.Profile, count: int) -> list[str]:
    """The controller's functions with the most own time in the profiled pass (paused in tools and the model)."""
    stats = pstats.Stats(profiler)
    rows = []
    for (filename, line, function), (_, calls, own, _cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        rows.append((own, calls, _short(filename), line, function))
    rows.sort(reverse=True)
    return [f"{fn} {path}:{line} {own * 1000:.1f} ms own, {calls} calls" for own, calls, path, line, fn in rows[:count]]


def _short(filename: str) -> str:
    for marker in ("site-packages/", "src/"):
        if marker in filename:
            return filename.split(marker, 1)[1]
    return filename


def _toolbox(data: list[Path]) -> SagaToolbox:
    backend = open_backend(data=data, endpoint=None, profile=None)
    return toolbox_over(KnowledgeGraph(backend), OpenOptions(), data=data)


def _big_store(args: argparse.Namespace, scratch: Path) -> tuple[Path, int]:
    """The 10M-triple store: the one given, else the scale graph generated and loaded with ``saga load``."""
    triples = int(float(args.big_triples.upper().rstrip("M")) * 1_000_000)
    entities = triples // scale_graph.TRIPLES_PER_ENTITY
    if args.big_store is not None:
        return args.big_store, entities
    nt = scratch / "graph.nt"
    _, entities = scale_graph.generate(nt, triples)
    store = scratch / "store"
    env = {**os.environ, "SAGA_SURVEY_DIR": str(scratch / "cache")}
    subprocess.run([sys.executable, "-m", "saga_kgqa", "load", str(nt), "--store", str(store)], env=env, check=True)
    nt.unlink()
    return store, entities


def main() -> None:
    """Measure both stores, print their figures as JSON and end with RESULT."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--questions", type=int, default=20, help="questions per store")
    parser.add_argument("--big-triples", default="10M", help="size of the generated store (M triples)")
    parser.add_argument(
        "--big-store", type=Path, default=None, help="a store loaded by `saga load` from bench/scale_graph.py"
    )
    parser.add_argument("--scratch", type=Path, default=None, help="where the generated store goes (default: /tmp)")
    parser.add_argument("--no-big", action="store_true", help="CK25 only")
    parser.add_argument(
        "--durability",
        default=RUN_DURABILITY,
        help=f"when checkpoints are written (sync, async; default {RUN_DURABILITY}, as the faces run); "
        "several, comma-separated, take turns question by question and the first is the RESULT's",
    )
    args = shrink(parser.parse_args(), questions=2, big_triples="0.003M")
    durabilities: list[Durability] = []
    for mode in args.durability.split(","):
        if mode not in ("sync", "async"):
            parser.error(f"--durability takes sync or async (comma-separated), not {mode!r}")
        durabilities.append(mode)
    os.environ.setdefault("LANGSMITH_TRACING", "false")
    _instrument()
    reports = []
    ck25 = _toolbox(
        [args.data_dir / "text2sparql_ck25" / "prod-inst.ttl", args.data_dir / "text2sparql_ck25" / "prod-vocab.ttl"]
    )
    try:
        reports.append(measure("ck25", ck25, ck25_cases(args.data_dir, args.questions), durabilities))
    finally:
        ck25.graph.close()
    print(json.dumps(reports[-1]), flush=True)
    if not args.no_big:
        scratch = args.scratch or Path(tempfile.mkdtemp(prefix="saga-agent-overhead-"))
        scratch.mkdir(parents=True, exist_ok=True)
        try:
            store, entities = _big_store(args, scratch)
            os.environ.setdefault("SAGA_SURVEY_DIR", str(scratch / "cache"))
            big = _toolbox([store])
            try:
                reports.append(measure("big", big, big_cases(entities, args.questions), durabilities))
            finally:
                big.graph.close()
            print(json.dumps(reports[-1]), flush=True)
        finally:
            if args.scratch is None and args.big_store is None:
                shutil.rmtree(scratch, ignore_errors=True)
    figures = " ".join(
        f"{r['store']}_overhead_ratio_p90={r['overhead_ratio']['p90']:.3f} "
        f"{r['store']}_overhead_ratio_p50={r['overhead_ratio']['p50']:.3f} "
        f"{r['store']}_overhead_p50_ms={r['overhead_ms']['p50']:.1f} "
        f"{r['store']}_overhead_p90_ms={r['overhead_ms']['p90']:.1f} "
        f"{r['store']}_tool_p50_ms={r['tool_ms']['p50']:.1f} "
        f"{r['store']}_overhead_cpu_p50_ms={r['overhead_cpu_ms']['p50']:.1f} "
        f"{r['store']}_overhead_cpu_p90_ms={r['overhead_cpu_ms']['p90']:.1f}"
        + "".join(
            f" {r['store']}_{mode}_overhead_ratio_p90={f['overhead_ratio']['p90']:.3f}"
            f" {r['store']}_{mode}_overhead_p50_ms={f['overhead_ms']['p50']:.1f}"
            f" {r['store']}_{mode}_overhead_cpu_p50_ms={f['overhead_cpu_ms']['p50']:.1f}"
            for mode, f in r["by_durability"].items()
        )
        for r in reports
    )
    floor = langgraph_floor(durabilities[0])
    print(json.dumps({"langgraph_floor_per_step": floor}), flush=True)
    print(
        f"RESULT durability={durabilities[0]} {figures} langgraph_floor_cpu_ms={floor['cpu_ms_p50']:.2f} "
        f"langgraph_floor_wall_ms={floor['wall_ms_p50']:.2f} load_average={os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()

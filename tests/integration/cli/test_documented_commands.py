"""Every command in README.md and docs/*.md runs as written (issue 43).

The shell blocks (```bash / ```sh) are extracted and each is run, unchanged, by ``bash -e`` in a scratch
clone: a copy of this checkout's files (its ``.venv`` and ``.tools`` linked) beside a ``shared`` that links
to the third-party data, so ``.venv/bin/saga`` and ``../shared/data`` resolve as in
a clone, and what the commands write (``runs/``, stores) lands in the scratch folder. A model, where one
is needed, is the scripted one of ``tests/support/studio_models.py`` (``SAGA_MODEL_FACTORY``), with a
script chosen by the question the block asks. A block passes when it exits 0 and prints no empty result
(``0 row(s)``, no bindings); ``saga ask`` exits non-zero for every outcome but answered.

Each block runs in its own process group, which is stopped when the block ends (a block may start a server
in the background, as a walkthrough does). An HTML comment on the line before a block says how else to run it:

* ``<!-- docs-test: outside-service (why) -->``: it needs a service this machine has not (a model
  endpoint, the public Wikidata service, another host, a model server that takes a long build); it is the
  only kind of block not run, and the test ``test_a_block_left_out_needs_an_outside_service`` lists each with
  its reason (``pytest -rs``);
* ``<!-- docs-test: bench (why) -->``: benchmarks of minutes to hours; the block runs as written with
  ``SAGA_BENCH_SMOKE=1`` (``bench/smoke.py``: tiny sizes, same code path), and every bench it names must
  print its ``RESULT`` line. The bench blocks start with the first block's test and run in the background,
  two at a time, while the other blocks run one by one (each bench block with its own state folders; they share
  only ``SAGA_BENCH_SMOKE_CACHE``, where the trial Wikidata store and index are built once); their tests, last,
  wait for them;
* ``<!-- docs-test: server URL -->``: it starts a server; it passes when the URL answers (any HTTP status),
  then the server is stopped;
* ``<!-- docs-test: python beside COMMAND until URL -->`` on a ```python block: COMMAND starts first (as a
  server, until URL answers), then the block runs as a script with ``.venv/bin/python``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from saga_kgqa.benchmarks.loaders import load_benchmark
from tests.conftest import REPO_ROOT, shared_data_dir

pytestmark = [pytest.mark.slow, pytest.mark.shared_data]

DOCUMENTS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(
    r"^(?:[ ]*<!-- docs-test: (?P<mark>[^\n]*?) -->\n)?(?P<indent>[ ]*)```(?P<lang>bash|sh|python)\n"
    r"(?P<body>.*?)^(?P=indent)```",
    re.S | re.M,
)
_EMPTY = re.compile(r"^0 row\(s\)|\"bindings\": \[\]", re.M)
SKIPPED_CLASSES = ("outside-service",)
BLOCK_SECONDS = 600  # the conformance suite by hand: two requirement sets
BENCH_SECONDS = 900  # a block of many benches, each a smoke run of seconds
_BENCH = re.compile(r"python (bench/\w+\.py)")
SERVER_SECONDS = 120
#: Bench blocks at once: their benches are mostly one busy process each, and the machine has two cores.
BENCH_WORKERS = 2

_SPACE = (
    "PREFIX ex: <http://example.org/space/> "
    'SELECT ?mission ?launched WHERE { ?mission ex:crewMember/ex:name "Jim Lovell" ; ex:launchDate ?launched }'
)
_CK25 = (
    "PREFIX pv: <http://ld.company.org/prod-vocab/> SELECT DISTINCT ?result WHERE "
    "{ <http://ld.company.org/prod-instances/empl-Heinrich.Hoch%40company.org> pv:hasManager ?result . }"
)
_LAB = (
    "PREFIX lab: <http://example.org/lab/> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> "
    'SELECT ?person WHERE { ?person lab:worksAt ?i . ?i rdfs:label "Institute of Proteins" }'
)


def _script(answer_type: tuple[str, str], search: str, sparql: str) -> list[object]:
    label, ident = answer_type
    return [
        json.dumps({"answer_type_label": label, "answer_type_id": ident}),
        {"tool": "search", "args": {"text": search}},
        {"tool": "execute", "args": {"sparql": sparql}},
        {"tool": "stop"},
    ]


#: The scripted model's conversation per question a block asks (the first key found in the block).
SCRIPTS: dict[str, list[object]] = {
    "Institute of Proteins": _script(("researcher", "lab:Researcher"), "Institute of Proteins", _LAB),
    "Heinrich Hoch": _script(("employee", "pv:Employee"), "Heinrich Hoch", _CK25),
    "Jim Lovell": _script(("space mission", "ex:Mission"), "Jim Lovell", _SPACE),
}
#: A block that runs MARS (``--method mars``) gets the gold-replay models of ``tests/support/replay_models.py``
#: for every role: MARS's linker names the question's capitalised words, its reasoner writes the question's
#: query, its verifier accepts it; SAGA's roles replay the same query. The questions they know, with their query,
#: are these and CK25's (with its gold queries).
MARS_GOLD = {"Which missions did Jim Lovell fly?": _SPACE}


@dataclass(frozen=True)
class Block:
    """One fenced block of a page, with its test mark."""

    page: str
    line: int
    lang: str
    mark: str
    body: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def key(self) -> str:
        """The id as a file name part (two pages may have a block on the same line)."""
        return re.sub(r"[^\w.-]", "_", self.id)

    @property
    def bench(self) -> bool:
        return self.mark.startswith("bench")

    @property
    def skipped_as(self) -> str | None:
        return next((kind for kind in SKIPPED_CLASSES if self.mark.startswith(kind)), None)


def blocks() -> list[Block]:
    found = []
    for page in DOCUMENTS:
        text = page.read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            mark = match.group("mark") or ""
            if match.group("lang") == "python" and not mark.startswith("python"):
                continue  # an API excerpt, not a command
            line = text.count("\n", 0, match.start("body"))
            found.append(
                Block(page.relative_to(REPO_ROOT).as_posix(), line, match.group("lang"), mark, match.group("body"))
            )
    return found


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of this checkout's files (tracked and new), its ``.venv`` and ``.tools`` linked, beside ``shared/``."""
    root = tmp_path_factory.mktemp("docs")
    clone = root / "clone"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO_ROOT / name
        if source.is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    for tool in (".venv", ".tools"):
        (clone / tool).symlink_to(REPO_ROOT / tool)
    (root / "shared").mkdir()
    (root / "shared" / "data").symlink_to(shared_data_dir())
    return clone


def environment(clone: Path, block: Block) -> dict[str, str]:
    script = next((items for key, items in SCRIPTS.items() if key in block.body), SCRIPTS["Jim Lovell"])
    script_file = clone / f"script-{block.key}.json"
    script_file.write_text(json.dumps(script), encoding="utf-8")
    # Outside the clone: uv keeps its cache (and build environments) there. A bench block, run beside another,
    # has its own; what benches may share is a pure function of the data, in SAGA_BENCH_SMOKE_CACHE.
    state = clone.parent / (f"state-{block.key}" if block.bench else "state")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SAGA_", "OPENAI_", "LANGCHAIN_"))}
    if "--method mars" in block.body:
        gold_file = clone / f"gold-{block.key}.json"
        ck25 = load_benchmark("ck25", shared_data_dir()).questions
        known = MARS_GOLD | {q.question: q.gold_sparql for q in ck25 if q.gold_sparql}
        gold_file.write_text(json.dumps(known), encoding="utf-8")
        env |= {
            "SAGA_MODEL_FACTORY": "tests.support.replay_models:mars_replay_factory",
            "SAGA_TEST_GOLD": str(gold_file),
        }
    return (
        {"SAGA_MODEL_FACTORY": "tests.support.studio_models:scripted_factory"}
        | env
        | {
            "SAGA_TEST_SCRIPT": str(script_file),
            "SAGA_MODEL": "scripted",
            "PYTHONPATH": str(REPO_ROOT),
            "LANGSMITH_TRACING": "false",
            "LANGGRAPH_CLI_NO_ANALYTICS": "1",
            "XDG_STATE_HOME": str(state),
            "XDG_CACHE_HOME": str(state / "cache"),
            "SAGA_SURVEY_DIR": str(state / "surveys"),
            "SAGA_DATA_DIR": str(clone.parent / "shared" / "data"),
            "SAGA_BENCH_SMOKE_CACHE": str(clone.parent / "bench-cache"),
            # `saga` bare, as an installed wheel puts it on PATH.
            "PATH": f"{clone / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        }
    )


def answers(url: str, within_s: float, process: subprocess.Popen[bytes]) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return True
        except urllib.error.HTTPError:
            return True  # it answered
        except OSError:
            time.sleep(0.5)
    return False


@contextmanager
def background(command: str, cwd: Path, env: dict[str, str], url: str) -> Iterator[subprocess.Popen[bytes]]:
    """A server command in its own process group, stopped (the whole group) when the block ends.

    The next block may start a server on the same port: this one's port is free again before it returns.
    """
    process = subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # a child the shell left behind
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and _listening(url):
            time.sleep(0.2)


def _listening(url: str) -> bool:
    parsed = urllib.parse.urlsplit(url)
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex((parsed.hostname or "127.0.0.1", parsed.port or 80)) == 0


def output_of(process: subprocess.Popen[bytes]) -> str:
    return process.stdout.read().decode(errors="replace")[-4000:] if process.stdout else ""


ALL = blocks()


def test_every_block_is_found_and_only_outside_services_are_left_out() -> None:
    assert any(b.page == "README.md" for b in ALL)
    marks = {b.mark.split(" ", 1)[0] for b in ALL if b.mark}
    assert marks <= {"outside-service", "bench", "server", "python"}, marks  # no other way to leave one out
    left_out = [b for b in ALL if b.skipped_as]
    assert all(b.skipped_as == "outside-service" and re.search(r"\(.+\)", b.mark) for b in left_out)  # with why
    readme = [b for b in ALL if b.page == "README.md"]
    # The README's examples all run but the two commands (a model endpoint, the suite's own prerequisites).
    assert [b.skipped_as for b in readme].count("outside-service") == 1


@pytest.mark.parametrize("block", [b for b in ALL if b.skipped_as], ids=lambda b: b.id)
def test_a_block_left_out_needs_an_outside_service(block: Block) -> None:
    """Listed, not run: the skip says which block and why (``pytest -rs`` prints them)."""
    pytest.skip(f"{block.id} not run, {block.mark}")


def bench_scripts(block: Block) -> list[str]:
    """The benches a block runs (scripts under ``bench/`` that end with a ``RESULT`` line; helpers excluded)."""
    return [name for name in _BENCH.findall(block.body) if "RESULT " in (REPO_ROOT / name).read_text(encoding="utf-8")]


def run_block(block: Block, cwd: Path, env: dict[str, str], seconds: float) -> subprocess.CompletedProcess[str]:
    """``bash -e`` on the block in its own process group; what it left running (a server with ``&``) is stopped.

    Output goes to files, not pipes: a background child holding a pipe open would keep the read waiting.
    """
    out, err = cwd.parent / f"out-{block.key}.txt", cwd.parent / f"err-{block.key}.txt"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            ["bash", "-e", "-o", "pipefail", "-c", block.body],
            cwd=cwd,
            env=env,
            stdout=stdout,
            stderr=stderr,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            code = process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            code = -9
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            time.sleep(0.5)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    text = {path: path.read_text(encoding="utf-8", errors="replace") for path in (out, err)}
    return subprocess.CompletedProcess(block.body, code, text[out], text[err])


@pytest.mark.parametrize("block", [b for b in ALL if not b.skipped_as and not b.bench], ids=lambda b: b.id)
def test_a_documented_block_runs_as_written(block: Block, clone: Path, bench_runs: dict[str, BenchRun]) -> None:
    del bench_runs  # started here, so the bench blocks run while these blocks do
    env = environment(clone, block)
    if block.mark.startswith("server "):
        url = block.mark.split()[1]
        with background(block.body, clone, env, url) as server:
            up = answers(url, SERVER_SECONDS, server)
            if not up:
                server.terminate()
        assert up, f"{block.id}: the server did not answer at {url}:\n{output_of(server)}"
        return
    if block.mark.startswith("python beside "):
        command, url = block.mark.removeprefix("python beside ").split(" until ")
        script = clone / f"block-{block.key}.py"
        script.write_text(block.body, encoding="utf-8")
        with background(command, clone, env, url) as server:
            assert answers(url, SERVER_SECONDS, server), f"{block.id}: {command} did not start:\n{output_of(server)}"
            run = subprocess.run(
                [".venv/bin/python", script.name],
                cwd=clone,
                env=env,
                capture_output=True,
                text=True,
                timeout=BLOCK_SECONDS,
                check=False,
            )
    else:
        run = run_block(block, clone, env, BLOCK_SECONDS)
    shown = f"{block.id} exited {run.returncode}:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    assert run.returncode == 0, shown
    assert not _EMPTY.search(run.stdout), f"an example returned no rows: {shown}"


BENCH_BLOCKS = [b for b in ALL if not b.skipped_as and b.bench]
#: A bench block's run, done or under way: what it printed and its wall time.
BenchRun = Future[tuple[subprocess.CompletedProcess[str], float]]


def run_bench_block(block: Block, clone: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    """The block as written in smoke mode, with its wall time."""
    env = environment(clone, block) | {"SAGA_BENCH_SMOKE": "1"}
    started = time.monotonic()
    run = run_block(block, clone, env, BENCH_SECONDS)
    return run, time.monotonic() - started


@pytest.fixture(scope="module")
def bench_runs(request: pytest.FixtureRequest, clone: Path) -> Iterator[dict[str, BenchRun]]:
    """Every selected bench block, started when the first block's test asks, ``BENCH_WORKERS`` at a time.

    They run in the background beside the other blocks (benches take free loopback ports, never the fixed ones
    the documented servers use, and write only to scratch folders); each bench block's test waits for its run.
    """
    chosen = {
        item.callspec.params["block"].id
        for item in request.session.items
        if getattr(item, "originalname", "") == "test_a_documented_bench_runs_as_written"
    }
    with ThreadPoolExecutor(BENCH_WORKERS, thread_name_prefix="bench-block") as pool:
        runs = {b.id: pool.submit(run_bench_block, b, clone) for b in BENCH_BLOCKS if b.id in chosen}
        yield runs
        for future in runs.values():
            future.cancel()  # one not started (a run cut short); those running end within BENCH_SECONDS


@pytest.mark.timeout(BENCH_SECONDS + 60)  # its block ran beside another, begun at the first bench block's test
@pytest.mark.parametrize("block", BENCH_BLOCKS, ids=lambda b: b.id)
def test_a_documented_bench_runs_as_written(block: Block, bench_runs: dict[str, BenchRun]) -> None:
    benches = bench_scripts(block)
    run, seconds = bench_runs[block.id].result()
    print(f"{block.id}: {seconds:.1f} s wall (beside other blocks), {len(benches)} bench(es) in smoke mode")
    shown = f"{block.id} exited {run.returncode}:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    assert run.returncode == 0, shown
    assert not _EMPTY.search(run.stdout), f"an example returned no rows: {shown}"
    results = [line for line in run.stdout.splitlines() if line.startswith("RESULT ")]
    assert benches and len(results) == len(benches), f"{len(benches)} benches, {len(results)} RESULT lines: {shown}"

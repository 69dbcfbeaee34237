"""Running ``saga search``/``lookup``/``sparql`` on a store loads no agent stack (issue 27: fast search).

``tests/unit/cli/test_cli_startup.py`` checks that *loading* a command is light; these run the
command to its end in a fresh interpreter and read ``sys.modules`` afterwards.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: The controller and model stack: a grounding command has no use for them.
AGENT_STACK = ("langgraph", "langchain", "langchain_core", "langsmith", "openai", "scipy", "numpy")

_GRAPH = """\
<http://example.org/a> <http://www.w3.org/2000/01/rdf-schema#label> "harbor alpha" .
<http://example.org/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Port> .
<http://example.org/Port> <http://www.w3.org/2000/01/rdf-schema#label> "port" .
<http://example.org/a> <http://example.org/near> <http://example.org/b> .
<http://example.org/b> <http://www.w3.org/2000/01/rdf-schema#label> "boreal delta" .
"""


def _run_loaded(argv: list[str], tmp_path: Path) -> tuple[set[str], str]:
    """Run ``saga argv`` in a fresh interpreter; the top-level packages loaded by the end, and its stdout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGCHAIN_")} | {
        "LANGSMITH_TRACING": "false",
        "SAGA_SURVEY_DIR": str(tmp_path / "surveys"),
        "SAGA_STORE_CACHE_DIR": str(tmp_path / "stores"),
    }
    code = (
        "import sys\nfrom saga_kgqa.cli import main\n"
        f"sys.argv = ['saga', *{argv!r}]\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert e.code in (0, None), e.code\n"
        "print('@@modules@@')\nprint('\\n'.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=180)
    assert done.returncode == 0, done.stderr
    output, modules = done.stdout.rsplit("@@modules@@", 1)
    return set(modules.split()), output


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small graph loaded by ``saga load`` (store and name index)."""
    root = tmp_path_factory.mktemp("store")
    graph = root / "g.nt"
    graph.write_text(_GRAPH, encoding="utf-8")
    _run_loaded(["load", str(graph), "--store", str(root / "s")], root)
    return root / "s"


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "harbor alpha"],
        ["lookup", "<http://example.org/a>"],
        ["sparql", "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"],
    ],
    ids=["search", "lookup", "sparql"],
)
def test_grounding_commands_on_a_store_load_no_agent_stack(argv: list[str], store: Path, tmp_path: Path) -> None:
    loaded, output = _run_loaded([*argv, "--data", str(store)], tmp_path)
    assert "pyoxigraph" in loaded  # the probe ran the command on the store
    assert output.strip()
    assert loaded.isdisjoint(AGENT_STACK), sorted(loaded & set(AGENT_STACK))


def test_search_on_a_store_finds_the_label(store: Path, tmp_path: Path) -> None:
    _, output = _run_loaded(["search", "harbor alpha", "--data", str(store)], tmp_path)
    assert "<http://example.org/a>" in output or "example.org/a" in output


@pytest.mark.parametrize(
    "argv", [["search", "harbor alpha"], ["lookup", "<http://example.org/a>"]], ids=["search", "lookup"]
)
def test_grounding_on_a_store_loads_no_sparql_parser(argv: list[str], store: Path, tmp_path: Path) -> None:
    # Their reads are template queries (never parsed again) and the index is opened from disk:
    # rdflib's SPARQL parser and the guard's grammar cost a second of start-up (issue 27).
    loaded, output = _run_loaded([*argv, "--data", str(store)], tmp_path)
    assert "pyoxigraph" in loaded and "example.org/a" in output
    assert loaded.isdisjoint({"rdflib", "pyparsing", "SPARQLWrapper", "httpx"}), sorted(
        loaded & {"rdflib", "pyparsing", "SPARQLWrapper", "httpx"}
    )


def test_resolve_on_a_catalog_store_loads_no_agent_stack(store: Path, tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(f'[sources.s]\nstore = "{store}"\n', encoding="utf-8")
    loaded, output = _run_loaded(["source", "resolve", "s", "harbor alpha", "--catalog", str(catalog)], tmp_path)
    assert "example.org/a" in output
    assert loaded.isdisjoint(AGENT_STACK), sorted(loaded & set(AGENT_STACK))

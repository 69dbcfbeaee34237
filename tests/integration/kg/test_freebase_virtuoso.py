"""The Freebase dialect on a real Virtuoso 7.2.5 (issue 12, item 4): ``saga lookup``, ``execute`` and ``ask``.

The graph (tests/data/freebase/virtuoso_freebase.ttl) is loaded into its own named graph
of the session's Virtuoso; the schema index is built by ``saga index build --dialect
freebase`` from tests/data/freebase/grailqa_ontology, lines copied from GrailQA's
``fb_roles``/``fb_types``/``reverse_properties`` (the last test checks that against
../shared/data when it is there). Under ``CI=true`` a missing Virtuoso fails these tests
(the ``virtuoso`` fixture).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from saga_kgqa.cli import app
from tests.conftest import TEST_DATA
from tests.support.openai_mock import MockReply, MockToolCall, serve_openai_mock
from tests.support.virtuoso_server import VirtuosoServer

FREEBASE = TEST_DATA / "freebase"
FIXTURE = FREEBASE / "virtuoso_freebase.ttl"
FB_GRAPH = "http://saga.test/freebase"
NS = "http://rdf.freebase.com/ns/"
# CWQ test question "Which movie with a character called Ajila was directed by Angelina Jolie?":
# its gold SPARQL, a director's film and a CVT (film.performance) two hops away.
QUESTION = "Which movie with a character called Ajla was directed by Angelina Jolie?"
CWQ_SPARQL = (
    "PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT DISTINCT ?x WHERE {\n"
    "FILTER (?x != ns:m.0f4vbz)\n"
    "FILTER (!isLiteral(?x) || lang(?x) = '' || langMatches(lang(?x), 'en'))\n"
    "ns:m.0f4vbz ns:film.director.film ?x .\n?x ns:film.film.starring ?c .\n"
    "?c ns:film.performance.character ns:m.0gwfc0b .\n}"
)
runner = CliRunner()


@dataclass(frozen=True)
class Freebase:
    """The Virtuoso endpoint holding the graph, and the options every command gets."""

    url: str
    options: tuple[str, ...]


@pytest.fixture(autouse=True)
def _no_shell_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Drop the developer's model and switch settings (SAGA_DIALECT would change what is tested)."""
    for name in list(os.environ):
        if name.startswith(("SAGA_", "OPENAI_")):
            monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def freebase(virtuoso: VirtuosoServer, tmp_path_factory: pytest.TempPathFactory) -> Freebase:
    virtuoso.load(FIXTURE, FB_GRAPH)
    schema = tmp_path_factory.mktemp("freebase-schema") / "freebase.json"
    built = runner.invoke(
        app, ["index", "build", "--dialect", "freebase", "--data-dir", str(FREEBASE), "--out", str(schema)]
    )
    assert built.exit_code == 0, built.output
    return Freebase(virtuoso.url, ("--endpoint", virtuoso.url, "--profile", "virtuoso", "--schema", str(schema)))


def _json(done: Result) -> dict[str, Any]:
    assert done.exit_code == 0, done.output
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def _lookup(freebase: Freebase, entity: str, *extra: str) -> Result:
    return runner.invoke(app, ["lookup", entity, *freebase.options, "--dialect", "freebase", *extra])


def test_lookup_takes_types_from_type_object_type_and_lists_reverse_properties(freebase: Freebase) -> None:
    result = _json(_lookup(freebase, "ns:m.0f4vbz", "--json"))
    assert result["entity"]["label"] == "Angelina Jolie"
    assert {t["id"] for t in result["types"]} == {"ns:people.person", "ns:film.director", "ns:film.actor"}
    kept = {k["info"]["property"]["id"]: k for k in result["kept"]}
    assert "ns:type.object.name" not in kept and "ns:type.object.type" not in kept
    assert [v["label"] for v in kept["ns:film.director.film"]["values"]] == ["In the Land of Blood and Honey"]
    reverse = {r["property"]["id"]: r for r in result["reverse"]}
    directed = reverse["ns:film.film.directed_by"]  # the film's edge pointing here
    assert directed["inverse"]["id"] == "ns:film.director.film"  # named by reverse_properties
    assert [s["label"] for s in directed["subjects"]] == ["In the Land of Blood and Honey"]


def test_lookup_expands_the_cvt_nodes_two_hops_deep(freebase: Freebase) -> None:
    done = _lookup(freebase, "ns:m.0saga_film")
    assert done.exit_code == 0, done.output
    text = done.stdout
    starring = next(line for line in text.splitlines() if "(ns:film.film.starring)" in line and "range" in line)
    assert '"actor" (ns:film.performance.actor): "Zana Marjanović" (ns:m.0saga_zana)' in starring
    assert '"character" (ns:film.performance.character): "Ajla" (ns:m.0gwfc0b)' in starring
    assert '"Goran Kostić" (ns:m.0saga_goran)' in starring
    assert "ns:film.performance.film" not in starring  # the edge back to the film is left out


def test_lookup_hides_a_property_whose_fb_roles_domain_excludes_the_type(freebase: Freebase) -> None:
    result = _json(_lookup(freebase, "ns:m.0gwfc0b", "--json"))
    assert {t["id"] for t in result["types"]} == {"ns:film.film_character"}
    # people.person.nationality has domain people.person in fb_roles; a film character is none.
    assert {h["info"]["property"]["id"] for h in result["hidden"]} == {"ns:people.person.nationality"}
    assert "ns:film.film_character.portrayed_in_films" in {k["info"]["property"]["id"] for k in result["kept"]}


def test_execute_runs_the_cwq_gold_query_through_the_cvt(freebase: Freebase) -> None:
    result = _json(runner.invoke(app, ["execute", CWQ_SPARQL, *freebase.options, "--json"]))
    assert result["status"] == "ok", result
    assert result["row_count"] == 1 and result["complete"], result
    assert "ns:m.0saga_film" in result["text"]


def test_execute_finds_a_type_conflict_with_the_fb_roles_schema(freebase: Freebase) -> None:
    # film.film.directed_by has domain film.film: asked of a person, the guard's type check says so.
    wrong = (
        "PREFIX ns: <http://rdf.freebase.com/ns/>\n"
        "SELECT ?d WHERE { ?p ns:type.object.type ns:people.person . ?p ns:film.film.directed_by ?d }"
    )
    done = runner.invoke(app, ["execute", wrong, *freebase.options, "--json"])
    result = json.loads(done.stdout)
    assert result["status"] == "blocked", result
    assert "expects a subject of type ns:film.film" in result["text"]
    # The graph was asked whether such a triple exists (--verify), and has none.
    assert "The graph has no such triple" in result["text"]


ANSWER_TYPE = MockReply(content=json.dumps({"answer_type_label": "film", "answer_type_id": "ns:film.film"}))
LOOKUP = MockReply(tool_calls=(MockToolCall("lookup", {"entity": "ns:m.0f4vbz"}),))
LOOKUP_FILM = MockReply(tool_calls=(MockToolCall("lookup", {"entity": "ns:m.0saga_film"}),))
EXECUTE = MockReply(tool_calls=(MockToolCall("execute", {"sparql": CWQ_SPARQL}),))
STOP = MockReply(tool_calls=(MockToolCall("stop", {}),))


def _observations(requests: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content") or "") for r in requests for m in r["messages"])


def test_ask_with_a_scripted_model_answers_from_virtuoso(freebase: Freebase, tmp_path: Path) -> None:
    with serve_openai_mock([ANSWER_TYPE, LOOKUP, LOOKUP_FILM, EXECUTE, STOP]) as mock:
        arguments = [
            "ask", QUESTION, "--json", "--quiet", *freebase.options, "--dialect", "freebase",
            "--checkpoint-db", str(tmp_path / "checkpoints.sqlite"),
        ]  # fmt: skip
        env = {"SAGA_BASE_URL": mock.base_url, "SAGA_MODEL": "gpt-oss-120b", "SAGA_CONTACT": "ops@example.org"}
        done = runner.invoke(app, arguments, env=env)
        requests = list(mock.requests)
    result = _json(done)
    assert result["status"] == "answered", result
    assert [row["x"] for row in result["answer"]["rows"]] == [NS + "m.0saga_film"]
    seen = _observations(requests)
    assert 'Types: "actor" (ns:film.actor), "director" (ns:film.director), "person" (ns:people.person)' in seen
    assert '"character" (ns:film.performance.character): "Ajla" (ns:m.0gwfc0b)' in seen  # the CVT, two hops


@pytest.mark.shared_data
def test_the_ontology_subset_is_copied_verbatim_from_grailqa(data_dir: Path) -> None:
    for name in ("fb_roles", "fb_types", "reverse_properties"):
        real = set((data_dir / "grailqa_ontology" / name).read_text(encoding="utf-8").splitlines())
        subset = (FREEBASE / "grailqa_ontology" / name).read_text(encoding="utf-8").splitlines()
        assert subset and set(subset) <= real, name

"""One dialect name everywhere: ``generic`` (``rdf`` accepted), and every ``--dialect`` lists the same choices."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from saga_kgqa.cli import app
from saga_kgqa.cli.options import DIALECT_CHOICES, dialect_name
from saga_kgqa.dialects import RDF_DIALECT, get_dialect

COMMANDS_WITH_DIALECT = [
    ["ask"],
    ["search"],
    ["lookup"],
    ["examples"],
    ["index", "build"],
    ["eval", "run"],
    ["eval", "ablate"],
]


@pytest.mark.parametrize("command", COMMANDS_WITH_DIALECT, ids=" ".join)
def test_every_dialect_option_lists_the_same_choices(command: list[str]) -> None:
    done = CliRunner().invoke(app, [*command, "--help"], terminal_width=400)
    assert done.exit_code == 0, done.output
    flat = " ".join(done.stdout.split())
    assert "--dialect [generic|wikidata|freebase]" in flat
    assert DIALECT_CHOICES in flat


def test_rdf_is_an_alias_of_generic() -> None:
    assert dialect_name("rdf") == "generic"
    assert dialect_name("generic") == "generic"
    assert get_dialect("rdf") is get_dialect("generic") is RDF_DIALECT
    assert RDF_DIALECT.name == "generic"
    with pytest.raises(typer.BadParameter, match="generic"):
        dialect_name("dbpedia")


def test_lookup_reads_the_same_under_either_spelling() -> None:
    runner = CliRunner()
    outputs = [runner.invoke(app, ["lookup", "ex:JimLovell", "--dialect", name]) for name in ("generic", "rdf")]
    assert all(done.exit_code == 0 for done in outputs), [done.output for done in outputs]
    assert "ex:Astronaut" in outputs[0].stdout
    assert outputs[0].stdout == outputs[1].stdout


def test_ask_rejects_an_unknown_dialect_before_needing_a_model() -> None:
    done = CliRunner().invoke(app, ["ask", "q", "--dialect", "dbpedia"])
    assert done.exit_code == 2
    assert "not a dialect" in done.stderr


def test_saga_dialect_accepts_the_alias_too() -> None:
    from saga_kgqa.config.context import SagaContext

    assert SagaContext.from_env({"SAGA_DIALECT": "rdf"}).dialect == "generic"

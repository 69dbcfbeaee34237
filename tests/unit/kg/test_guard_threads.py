"""The guard's grammars are safe under concurrent first use (issue 21, point 1).

pyparsing finds a parse action's arity on its first call by trial and error; two threads
doing that at once locked in a wrong count and every later parse in the process failed.
Each test starts a fresh interpreter, so the threads really are the first callers.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from saga_kgqa.kg.guard import sparql_grammar
from saga_kgqa.kg.guard.parse_actions import settle_grammar

_ROOT = Path(__file__).resolve().parents[3]


def _race(threads: int) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.guard_threads", str(threads)],
        cwd=_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_sixteen_threads_parse_at_once_in_a_fresh_process() -> None:
    result = _race(16)
    assert result["errors"] == []
    assert result["after"] == "ok"


def test_the_installed_pyparsing_is_settled_rather_than_serialised() -> None:
    # The lock is only a fallback; with the pinned pyparsing every action is settled.
    assert sparql_grammar.THREAD_SAFE


def test_settling_keeps_what_each_action_is_given() -> None:
    import pyparsing as pp

    seen: list[object] = []
    word = pp.Word(pp.alphas)
    word.add_parse_action(lambda toks: seen.append(("toks", toks[0])))
    number = pp.Word(pp.nums)
    number.add_parse_action(lambda loc, toks: seen.append(("loc", loc, toks[0])))
    both = word + number
    both.add_parse_action(lambda s, loc, toks: seen.append(("all", s, loc)))
    assert settle_grammar(both)
    both.parse_string("abc 12")
    assert seen == [("toks", "abc"), ("loc", 4, "12"), ("all", "abc 12", 0)]

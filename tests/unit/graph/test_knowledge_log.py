"""The controller's knowledge log keeps failures and summarises type discoveries (issue 13, point 3)."""

from __future__ import annotations

from saga_kgqa.graph.prompting import knowledge_log_text
from saga_kgqa.state import KnowledgeEntry


def _entry(step: int, outcome: str, summary: str) -> KnowledgeEntry:
    return KnowledgeEntry.model_validate({"step": step, "outcome": outcome, "summary": summary})


def test_a_failure_outlives_a_crowd_of_type_discoveries() -> None:
    # The scripted run of the issue: step 3 blocked, then four steps of lookups full of [info] lines.
    entries = [_entry(1, "ok", "search 'Isfahan': 3 hits"), _entry(2, "ok", "lookup wd:Q42053: 2 properties")]
    entries.append(_entry(3, "blocked", "execute: ?x wdt:P1082 conflicts with the domain"))
    for step in range(4, 8):
        entries.extend(_entry(step, "info", f"wd:Q{step}{n} has type wd:Q515") for n in range(3))
        entries.append(_entry(step, "ok", f"lookup wd:Q{step}: 5 properties"))
    text = knowledge_log_text(entries, 6)
    lines = text.splitlines()
    assert len(lines) <= 6
    assert "[fail] BLOCKED step 3: execute: ?x wdt:P1082 conflicts with the domain" in lines
    # Twelve discoveries become one summary line, and the latest ok outcome is still there.
    info = [line for line in lines if line.startswith("[info]")]
    assert len(info) == 1 and "12 types found" in info[0] and "steps 4-7" in info[0]
    assert lines[-1] == "[ok] step 7: lookup wd:Q7: 5 properties"


def test_repeated_failures_are_shown_once_with_their_count() -> None:
    entries = [_entry(step, "empty", "execute: 0 rows") for step in (2, 4, 6)]
    entries.append(_entry(7, "error", "execute: timeout"))
    lines = knowledge_log_text(entries, 6).splitlines()
    assert lines == ["[fail] Empty steps 2, 4, 6 (3 times): execute: 0 rows", "[fail] error step 7: execute: timeout"]


def test_failures_beyond_the_budget_say_how_many_are_left_out() -> None:
    entries = [_entry(step, "blocked", f"execute: pattern {step}") for step in range(1, 11)]
    lines = knowledge_log_text(entries, 4).splitlines()
    assert len(lines) == 4
    assert lines[0] == "[fail] 7 earlier failures not shown (steps 1-7)"
    assert lines[-1] == "[fail] BLOCKED step 10: execute: pattern 10"


def test_only_ok_entries_keep_the_last_window() -> None:
    entries = [_entry(i, "ok", f"s{i}") for i in range(10)]
    lines = knowledge_log_text(entries, 6).splitlines()
    assert lines[0] == "[ok] step 4: s4" and lines[-1] == "[ok] step 9: s9"
    assert knowledge_log_text([], 6) == "(nothing yet)"

"""``kg_ask`` over MCP as hosts wait for it: progress while it runs, cancellation that stops it, resume after.

The model is scripted and slow (``tests.support.slow_models``: each call takes
``SAGA_TEST_DELAY`` seconds), so a run lasts long enough to watch and to cancel.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import time
from pathlib import Path

import anyio

from tests.conftest import REPO_ROOT
from tests.support.mcp_servers import stdio_session
from tests.support.scripted_model import answer_type

QUERY = "PREFIX ex: <http://example.org/space/> SELECT ?m WHERE { ?m ex:crewMember ex:JimLovell }"
QUESTION = "Which missions did Jim Lovell fly?"
DELAY_S = 2.5


def slow_env(tmp_path: Path) -> dict[str, str]:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                answer_type("mission", "ex:Mission"),
                {"tool": "lookup", "args": {"entity": "ex:JimLovell"}},
                {"tool": "examples", "args": {"property": "ex:crewMember"}},
                {"tool": "execute", "args": {"sparql": QUERY}},
                {"tool": "stop", "args": {}},
            ]
        ),
        encoding="utf-8",
    )
    return {
        "SAGA_MODEL_FACTORY": "tests.support.slow_models:slow_scripted_factory",
        "SAGA_TEST_SCRIPT": str(script),
        "SAGA_TEST_DELAY": str(DELAY_S),
        "SAGA_CHECKPOINT_DB": str(tmp_path / "checkpoints.sqlite"),
        "PYTHONPATH": str(REPO_ROOT),
    }


def test_ask_sends_progress_at_least_every_progress_interval_and_answers(tmp_path: Path) -> None:
    stamps: list[tuple[float, str]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        stamps.append((time.monotonic(), message or ""))

    async def main() -> object:
        async with stdio_session(["--progress-seconds", "1"], slow_env(tmp_path)) as session:
            started = time.monotonic()
            result = await session.call_tool("kg_ask", {"question": QUESTION}, progress_callback=on_progress)
            stamps.insert(0, (started, "call"))
            return result

    result = asyncio.run(main())
    structured = result.structured_content  # type: ignore[attr-defined]
    assert structured["status"] == "answered", result
    assert "http://example.org/space/Apollo13" in {row["m"]["value"] for row in structured["rows"]}
    times = [t for t, _ in stamps]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    # Five model calls of 2.5 s: over ten seconds, never silent longer than the interval (plus polling slack).
    assert len(stamps) >= 8 and max(gaps) < 2.0, gaps
    assert all(f"run_id={structured['run_id']}" in m for _, m in stamps[1:])
    assert any("last step: lookup" in m for _, m in stamps)


def test_a_cancelled_ask_stops_within_seconds_and_resumes_from_its_checkpoint(tmp_path: Path) -> None:
    seen: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(message or "")

    async def main() -> tuple[float, object]:
        async with stdio_session(["--progress-seconds", "1"], slow_env(tmp_path)) as session:
            # Cancel once the lookup has run, mid-way through the next model call: run on, the rest would take 6 s.
            with anyio.move_on_after(DELAY_S * 2 + 1.5):
                await session.call_tool("kg_ask", {"question": QUESTION}, progress_callback=on_progress)
                raise AssertionError("the run ended before it was cancelled")
            run_id = re.search(r"run_id=(\w+)", seen[-1]).group(1)  # type: ignore[union-attr]
            cancelled = time.monotonic()
            while True:  # the run stops at its next step: until then a resume answers busy
                resumed = await session.call_tool("kg_ask", {"question": QUESTION, "run_id": run_id})
                if not (resumed.is_error and "busy" in str(resumed.content)):
                    return time.monotonic() - cancelled, resumed
                assert time.monotonic() - cancelled < 5.0, "the cancelled run did not stop within 5 s"
                await anyio.sleep(0.25)

    waited, resumed = asyncio.run(main())
    assert waited < 5.0 + DELAY_S * 2  # stopped within 5 s; the resumed part ran its two model calls
    structured = resumed.structured_content  # type: ignore[attr-defined]
    assert structured["resumed"] is True and structured["status"] == "answered", resumed
    # lookup, examples (its model call was under way), execute, stop: none repeated (the run's own count)
    assert structured["steps"] == 4
    assert "http://example.org/space/Apollo13" in {row["m"]["value"] for row in structured["rows"]}


def test_a_run_beyond_max_runs_answers_busy_with_a_hint(tmp_path: Path) -> None:
    async def main() -> tuple[object, object, float]:
        async with stdio_session(["--max-runs", "1"], slow_env(tmp_path)) as session:
            first = asyncio.ensure_future(session.call_tool("kg_ask", {"question": QUESTION}))
            await asyncio.sleep(DELAY_S)  # the first run holds the only slot
            started = time.monotonic()
            second = await session.call_tool("kg_ask", {"question": QUESTION})
            answered_s = time.monotonic() - started
            return await first, second, answered_s

    first, second, answered_s = asyncio.run(main())
    said = str(second.content)  # type: ignore[attr-defined]
    assert second.is_error and "busy" in said and "retry after" in said, second  # type: ignore[attr-defined]
    assert answered_s < 2.0  # at once, not queued behind the first run
    assert first.structured_content["status"] == "answered"  # type: ignore[attr-defined]

"""`saga eval run --concurrency 4` in a fresh process answers every question (issue 21, point 1).

Before the guard's grammars were settled at import, the four workers' first parses raced in
pyparsing and all 12 questions ended ``failed``; the process never recovered.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.shared_data


def test_four_concurrent_questions_from_a_fresh_process_all_answer(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    command = [
        sys.executable, "-m", "saga_kgqa", "eval", "run", "ck25", "-o", str(out),
        "--answerer", "gold-replay", "--data", str(data_dir / "text2sparql_ck25" / "prod-inst.ttl"),
        "--data-dir", str(data_dir), "--concurrency", "4", "--limit", "12",
    ]  # fmt: skip
    subprocess.run(command, capture_output=True, text=True, timeout=300, check=True)
    statuses = [json.loads(line)["status"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert statuses == ["answered"] * 12

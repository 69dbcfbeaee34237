"""``saga serve text2sparql``: the TEXT2SPARQL API answers the CK25 questions; ``saga eval score`` scores the run."""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from saga_kgqa.benchmarks.loaders import load_benchmark
from saga_kgqa.runs.batch import read_run
from tests.support.http_servers import SAGA, saga_server, server_env

pytestmark = pytest.mark.shared_data

CK25 = "https://text2sparql.aksw.org/2025/corporate/"


def test_gold_replay_answers_every_ck25_question_and_the_record_scores_em_one(tmp_path: Path, data_dir: Path) -> None:
    graph = data_dir / "text2sparql_ck25" / "prod-inst.ttl"
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(f'[sources.corporate]\ndata = ["{graph}"]\n', encoding="utf-8")
    predictions = tmp_path / "t2s.jsonl"
    questions = list(load_benchmark("ck25", data_dir).questions)
    args = ["serve", "text2sparql", "--out", str(predictions), "--dataset", f"{CK25}=corporate"]
    args += ["--answerer", "gold-replay", "--benchmark", "ck25", "--data-dir", str(data_dir)]
    with saga_server(args, {"SAGA_CATALOG": str(catalog)}) as url, httpx.Client(base_url=url, timeout=60) as client:
        for question in questions:
            reply = client.get("/", params={"dataset": CK25, "question": question.question})
            assert reply.status_code == 200, reply.text
            body = reply.json()
            assert set(body) == {"dataset", "question", "query"}
            assert body["dataset"] == CK25 and body["question"] == question.question
            assert body["query"] == (question.gold_sparql or "")
        unknown = client.get("/", params={"dataset": "https://example.org/other/", "question": "Who?"})
        assert unknown.status_code == 404 and CK25 in unknown.json()["error"]
        assert client.get("/", params={"dataset": CK25}).status_code == 400
        # Asked again, a question is answered from its record; the file keeps one record per question.
        again = client.get("/", params={"dataset": CK25, "question": questions[0].question})
        assert again.json()["query"] == (questions[0].gold_sparql or "")
    lines = predictions.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(questions) == len(read_run(predictions))
    assert {json.loads(line)["question_id"] for line in lines} == {q.id for q in questions}

    gold = tmp_path / "gold.jsonl"
    env = server_env()
    built = subprocess.run(
        [SAGA, "eval", "gold", "ck25", "--out", str(gold), "--data", str(graph), "--data-dir", str(data_dir)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    scored = subprocess.run(
        [SAGA, "eval", "score", str(predictions), "--gold", str(gold), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert scored.returncode == 0, scored.stderr
    per_question = [json.loads(line) for line in scored.stdout.splitlines() if line.strip()]
    assert len(per_question) == len(questions)
    usable = [entry for entry in per_question if "not_scored" not in entry]
    assert len(usable) == 44  # the CK25 questions with usable gold
    assert all(entry["strict_em"] == 1.0 for entry in usable), usable


def test_eight_concurrent_questions_on_a_fresh_server_all_answer_and_so_does_the_next(
    tmp_path: Path, data_dir: Path
) -> None:
    graph = data_dir / "text2sparql_ck25" / "prod-inst.ttl"
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(f'[sources.corporate]\ndata = ["{graph}"]\n', encoding="utf-8")
    questions = [q for q in load_benchmark("ck25", data_dir).questions if q.gold_sparql][:9]
    args = ["serve", "text2sparql", "--out", str(tmp_path / "t2s.jsonl"), "--dataset", f"{CK25}=corporate"]
    args += ["--answerer", "gold-replay", "--benchmark", "ck25", "--data-dir", str(data_dir)]
    with saga_server(args, {"SAGA_CATALOG": str(catalog)}) as url, httpx.Client(base_url=url, timeout=120) as client:

        def ask(text: str) -> httpx.Response:
            return client.get("/", params={"dataset": CK25, "question": text})

        # The first eight at once, on a server that has parsed nothing yet.
        with ThreadPoolExecutor(8) as pool:
            replies = list(pool.map(ask, [q.question for q in questions[:8]]))
        after = ask(questions[8].question)
    for question, reply in zip(questions, [*replies, after], strict=True):
        assert reply.status_code == 200 and reply.headers["content-type"] == "application/json", reply.text
        assert reply.json()["query"] == question.gold_sparql

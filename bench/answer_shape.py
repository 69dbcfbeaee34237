"""The answer-shape rule on GRASP's two CK25 runs, scored as TEXT2SPARQL scores (issue 25), LLM-free.

Each run's final queries are executed on the CK25 graph (through saga's guard and store)
as they were, and again after :func:`saga_kgqa.answer_shape.shape_query` drops display-only
label columns; both are scored with the official evaluator's arithmetic
(:mod:`saga_kgqa.eval.qa.text2sparql_eval`) against the official true result set.
``--official-out DIR`` also writes the predicted sets in the client's format, so that
``text2sparql evaluate NAME DIR/true.json DIR/<run>.<shape>.json`` cross-checks the figures.

Usage: python bench/answer_shape.py --data-dir ../shared/data [--official-out /tmp/shape]
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path
from typing import Any

import yaml

from saga_kgqa.answer_shape import shape_query
from saga_kgqa.errors import SagaError
from saga_kgqa.eval.qa.metrics import text2sparql_values
from saga_kgqa.eval.qa.text2sparql_eval import Text2SparqlScores, score_run
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from smoke import first

RUNS = ("search_extended", "search_extended_with_feedback")
LIMITS = ExecutionLimits(deadline_s=30, max_rows=100_000)


def _values(graph: KnowledgeGraph, text: str) -> dict[str, int]:
    if not text.strip():
        return {}
    try:
        return text2sparql_values(graph.query(text, limits=LIMITS))
    except SagaError:  # a rejected or failing query answers nothing, as the official client counts it
        return {}


def _run(data_dir: Path, graph: KnowledgeGraph, run: str) -> dict[str, dict[str, dict[str, int]]]:
    path = data_dir / "grasp_ck25" / f"gpt-41-mini.{run}.jsonl.gz"
    out: dict[str, dict[str, dict[str, int]]] = {"original": {}, "shaped": {}}
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            record: dict[str, Any] = json.loads(line)
            name = f"ck25:{record['id']}-en"
            text = record.get("sparql") or ""
            question = (record.get("questions") or [None])[0]
            out["original"][name] = _values(graph, text)
            out["shaped"][name] = _values(graph, shape_query(text, question).scored) if text else {}
    return out


def _line(label: str, scores: Text2SparqlScores) -> str:
    return (
        f"{label:<42} P={scores.set_p:.4f} R={scores.set_recall:.4f} F={scores.set_f:.4f} "
        f"nDCG={scores.ndcg or 0:.4f} F+nDCG={scores.set_f_ndcg or 0:.4f}"
    )


def main() -> None:
    """Execute, shape, score, print, end with the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--official-out", type=Path, default=None, help="write the client's input files here")
    args = parser.parse_args()
    base = args.data_dir / "text2sparql_ck25"
    gold: dict[str, Any] = json.loads((base / "ck25_true_result_set.json").read_text(encoding="utf-8"))
    questions = yaml.safe_load((base / "questions.yml").read_text(encoding="utf-8"))["questions"]
    # Every ORDER question gets nDCG here (the official file marks none; the client's rule would mark 27 and 37).
    gold["order_required"] = [f"ck25:{q['id']}-en" for q in questions if "ORDER" in (q.get("features") or [])]
    if args.official_out:
        args.official_out.mkdir(parents=True, exist_ok=True)
        (args.official_out / "true.json").write_text(json.dumps(gold), encoding="utf-8")
    fields = []
    with KnowledgeGraph(open_backend(data=[base / "prod-inst.ttl"])) as graph:
        for run in first(RUNS):
            sets = _run(args.data_dir, graph, run)
            scores = {shape: score_run(predicted, gold) for shape, predicted in sets.items()}
            for shape, figures in scores.items():
                print(_line(f"{run} {shape}", figures))
                if args.official_out:
                    (args.official_out / f"{run}.{shape}.json").write_text(json.dumps(sets[shape]), encoding="utf-8")
            before, after = scores["original"], scores["shaped"]
            changed = [n for n in after.questions if after.questions[n] != before.questions[n]]
            lost = [n for n in changed if after.questions[n].set_recall < before.questions[n].set_recall - 1e-12]
            print(f"  changed questions: {len(changed)}, recall lowered on: {lost or 'none'}")
            short = "fb" if run.endswith("feedback") else "se"
            fields.append(
                f"{short}_P={before.set_p:.4f}->{after.set_p:.4f} {short}_R={before.set_recall:.4f}->"
                f"{after.set_recall:.4f} {short}_F={before.set_f:.4f}->{after.set_f:.4f}"
            )
    print("RESULT " + " ".join(fields))


if __name__ == "__main__":
    main()
